import type { ModelRef } from "../message/part.js"
import { catalogueText } from "./catalogue-data.js"
import { type CatalogueEntry, matches } from "./catalogue-entry.js"
import type { ModelInfo } from "./model-info.js"

export { catalogueSource } from "./catalogue-data.js"

// Platforms that resell a vendor's models at its prices, under the vendor's model IDs.
const RESELLERS = new Map<string, readonly string[]>([
  ["azure", ["openai"]],
  ["google-vertex", ["google", "anthropic"]],
  ["google-vertex-anthropic", ["anthropic"]],
])

// Routers name a model "vendor/model" and bill the vendor's list prices.
const ROUTERS = new Set(["gateway", "openrouter"])
const VENDOR_ALIASES = new Map([
  ["x-ai", "xai"],
  ["mistralai", "mistral"],
])

// The catalogue's source has prices and windows, not capabilities. These vendors' current chat
// models all take images and files; elsewhere a tool's files would make a text-only model fail.
const ATTACHMENT_VENDORS = new Set(["anthropic", "openai", "google", "xai"])

/**
 * What the catalogue knows of a model: name, prices and window, with capabilities assumed (tool
 * calls, temperature, and attachments for the vendors above). Undefined when it does not know it.
 */
export function catalogueInfo(ref: ModelRef): ModelInfo | undefined {
  const entry = find(ref)
  if (!entry) return undefined
  return {
    providerID: ref.providerID,
    id: ref.modelID,
    name: entry.name,
    ...(entry.context ? { limit: { context: entry.context, output: 0 } } : {}),
    cost: entry.cost,
    capabilities: assumedCapabilities(ref),
  }
}

/** What a model is assumed to do when nothing says otherwise. */
export function assumedCapabilities(ref: ModelRef): ModelInfo["capabilities"] {
  const vendor = vendorOf(ref)?.providerID ?? ref.providerID
  return { reasoning: false, toolcall: true, attachment: ATTACHMENT_VENDORS.has(vendor), temperature: true }
}

function find(ref: ModelRef): CatalogueEntry | undefined {
  const routed = vendorOf(ref)
  if (routed) return find(routed)
  const modelID = ref.modelID.toLowerCase().trim()
  for (const providerID of RESELLERS.get(ref.providerID) ?? [ref.providerID]) {
    const entry = entryOf(Object.hasOwn(catalogueText, providerID) ? catalogueText[providerID]! : [], modelID)
    if (entry) return entry
  }
  return undefined
}

/**
 * The model named `modelID` exactly, else the first whose rule matches it. Parsed at each lookup,
 * so the caller owns what it gets; each text starts with its ID (the generator writes it first),
 * so an exact name is found without parsing the others.
 */
function entryOf(texts: readonly string[], modelID: string): CatalogueEntry | undefined {
  const named = texts.find((text) => text.startsWith(`{"id":${JSON.stringify(modelID)},`))
  if (named) return JSON.parse(named)
  for (const text of texts) {
    const entry: CatalogueEntry = JSON.parse(text)
    if (matches(entry.match, modelID)) return entry
  }
  return undefined
}

function vendorOf(ref: ModelRef): ModelRef | undefined {
  const slash = ref.modelID.indexOf("/")
  if (!ROUTERS.has(ref.providerID) || slash <= 0) return undefined
  const vendor = ref.modelID.slice(0, slash)
  return { providerID: VENDOR_ALIASES.get(vendor) ?? vendor, modelID: ref.modelID.slice(slash + 1) }
}
