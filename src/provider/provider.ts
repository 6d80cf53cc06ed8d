import type { LanguageModel } from "ai"
import { z } from "zod"
import { parseInput } from "../error/invalid-input.js"
import { ModelRef } from "../message/part.js"
import { UnknownModelError } from "./errors.js"
import type { Logger } from "./logger.js"
import { ModelInfo } from "./model-info.js"
import { resolveModelInfo, warnUnknownModel } from "./resolve-info.js"

/** A model ready to call, with what agentloop knows about it. */
export type Model = { language: LanguageModel; info: ModelInfo }

/**
 * The model port. `createProvider` builds one from a fixed list; a host can implement it itself
 * (say, to resolve models lazily). Lookups are synchronous, and an absent model throws
 * `UnknownModelError`.
 */
export interface Provider {
  getModel(ref: ModelRef): Model
  defaultModel(): Model
  /** The model for cheap side jobs such as titles; undefined when none is configured. */
  smallModel(): Model | undefined
  /**
   * Every model it serves, for clients that offer a choice (the HTTP server's model lists).
   * Optional: a provider that resolves models lazily may not know them all; then only the
   * default and small models are offered.
   */
  models?(): Model[]
}

// A string is a model ID for the AI SDK's global provider; anything else must be a model object.
const Language = z.custom<LanguageModel>(
  (value) =>
    (typeof value === "string" && value.length > 0) ||
    (typeof value === "object" &&
      value !== null &&
      typeof (value as { doStream?: unknown }).doStream === "function"),
  { message: "Expected an AI SDK language model" },
)

const Entry = z.object({
  providerID: z.string().min(1),
  modelID: z.string().min(1),
  language: Language,
  /** Default: the catalogue's (see docs/provider.md). */
  info: ModelInfo.optional(),
})

/**
 * What `createProvider` takes: the models (IDs, AI SDK language model, optional `info`), the
 * default and optionally the small model that writes titles. Its checks are the ones
 * `createProvider` throws InvalidInputError for: no models, a model listed twice, an `info`
 * whose IDs differ from its entry's, or a `default` or `small` that is not in the list.
 */
export const ProviderOptions = z
  .object({
    models: z.array(Entry).min(1).readonly(),
    default: ModelRef,
    small: ModelRef.optional(),
    /** Gets the warning about a model without info that the catalogue does not know; default console. */
    logger: z
      .custom<Logger>((value) => typeof (value as Partial<Logger> | null)?.warn === "function", {
        message: "expected a logger ({ warn(message) })",
      })
      .optional(),
  })
  .superRefine((options, ctx) => {
    const seen = new Set<string>()
    options.models.forEach((entry, index) => {
      if (seen.has(idOf(entry))) {
        ctx.addIssue({ code: "custom", path: ["models", index], message: `Duplicate model ${nameOf(entry)}` })
      }
      seen.add(idOf(entry))
      if (!entry.info) return
      if (entry.info.providerID !== entry.providerID) {
        ctx.addIssue({
          code: "custom",
          path: ["models", index, "info", "providerID"],
          message: `Must equal the entry's providerID "${entry.providerID}"`,
        })
      }
      if (entry.info.id !== entry.modelID) {
        ctx.addIssue({
          code: "custom",
          path: ["models", index, "info", "id"],
          message: `Must equal the entry's modelID "${entry.modelID}"`,
        })
      }
    })
    for (const field of ["default", "small"] as const) {
      const ref = options[field]
      if (ref && !seen.has(idOf(ref))) {
        ctx.addIssue({
          code: "custom",
          path: [field],
          message: `${nameOf(ref)} is not one of the listed models (${options.models.map(nameOf).join(", ")})`,
        })
      }
    }
  })
export type ProviderOptions = z.input<typeof ProviderOptions>

/**
 * Builds a Provider over a fixed list of models; a model without `info` gets the catalogue's (and a
 * warning when the catalogue does not know its prices). Throws InvalidInputError naming the bad field.
 */
export function createProvider(options: ProviderOptions): Provider {
  const parsed = parseInput("provider options", ProviderOptions, options)
  const models = new Map<string, Model>(
    parsed.models.map((entry) => [
      idOf(entry),
      { language: entry.language, info: entry.info ?? infoOf(entry, parsed.logger) },
    ]),
  )
  const known = parsed.models.map(nameOf)
  // Every step looks its model up: by provider, then model, with no key to build.
  const byProvider = new Map<string, Map<string, Model>>()
  for (const entry of parsed.models) {
    const served = byProvider.get(entry.providerID) ?? new Map<string, Model>()
    served.set(entry.modelID, models.get(idOf(entry))!)
    byProvider.set(entry.providerID, served)
  }

  function getModel(ref: ModelRef): Model {
    const { providerID, modelID } = wellFormed(ref) ?? parseInput("model reference", ModelRef, ref)
    const model = byProvider.get(providerID)?.get(modelID)
    if (!model) throw UnknownModelError.of({ providerID, modelID }, known)
    return model
  }

  return {
    getModel,
    defaultModel: () => getModel(parsed.default),
    smallModel: () => (parsed.small ? getModel(parsed.small) : undefined),
    models: () => [...models.values()],
  }
}

/**
 * The IDs of a reference the ModelRef schema accepts as it is (an object, not an array, with
 * two non-empty strings), read once each as the schema reads them; undefined for anything else,
 * which the schema then checks to name what is wrong.
 */
function wellFormed(ref: unknown): ModelRef | undefined {
  if (typeof ref !== "object" || ref === null || Array.isArray(ref)) return undefined
  const { providerID, modelID } = ref as { providerID?: unknown; modelID?: unknown }
  if (typeof providerID !== "string" || providerID === "") return undefined
  if (typeof modelID !== "string" || modelID === "") return undefined
  return { providerID, modelID }
}

function infoOf(ref: ModelRef, logger: Logger | undefined): ModelInfo {
  const { info, unpriced } = resolveModelInfo(ref)
  if (unpriced) warnUnknownModel(ref, logger)
  return info
}

// Model IDs often contain "/" (e.g. OpenRouter's "anthropic/claude-sonnet-4"), so the lookup key
// must not be the display name, or "a/b" + "c" would collide with "a" + "b/c".
function idOf(ref: { providerID: string; modelID: string }): string {
  return JSON.stringify([ref.providerID, ref.modelID])
}

function nameOf(ref: { providerID: string; modelID: string }): string {
  return `${ref.providerID}/${ref.modelID}`
}
