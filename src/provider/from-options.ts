import { z } from "zod"
import { InvalidInputError } from "../error/invalid-input.js"
import type { ModelRef } from "../message/part.js"
import type { Logger } from "./logger.js"
import { createProvider, type Provider } from "./provider.js"
import { type LanguageModelObject, modelRefOf } from "./provider-id.js"
import { ModelInfoOverride, resolveModelInfo, warnUnknownModel } from "./resolve-info.js"

const ModelObject = z.custom<LanguageModelObject>(
  (value) => {
    const model = value as Record<string, unknown> | null
    return (
      typeof model === "object" &&
      model !== null &&
      typeof model.doStream === "function" &&
      typeof model.provider === "string" &&
      typeof model.modelId === "string"
    )
  },
  {
    message:
      'Expected an AI SDK language model, such as anthropic("claude-sonnet-4-5"), or { language, info }',
  },
)

/** A model for `createRuntime({ model, models, smallModel })`: an AI SDK model, or one with info. */
export const ModelInput = z.union([
  ModelObject,
  z.strictObject({ language: ModelObject, info: ModelInfoOverride.optional() }),
])
export type ModelInput = z.input<typeof ModelInput>

export type ModelOptions = {
  provider?: Provider | undefined
  model?: ModelInput | undefined
  models?: readonly ModelInput[] | undefined
  smallModel?: ModelInput | undefined
  /** Gets the warning about a model the catalogue does not know; default console. */
  logger?: Logger | undefined
}

/**
 * The runtime's provider: `provider` as given, or one built from `model` / `models` (the first is
 * the default) and `smallModel`, with their info from the catalogue. Says once per model when the
 * catalogue does not know its prices. Throws InvalidInputError when the options conflict.
 */
export function providerFromOptions(options: ModelOptions): Provider | undefined {
  const conflict = conflictOf(options)
  if (conflict) {
    throw new InvalidInputError({
      message: `Invalid runtime options: ${conflict.path}: ${conflict.message}`,
      issues: [conflict],
    })
  }
  const listed = options.models ?? (options.model ? [options.model] : [])
  const [first, ...rest] = listed.map(entryOf)
  if (!first) return options.provider
  const small = options.smallModel ? entryOf(options.smallModel) : undefined
  const entries = [first, ...rest]
  if (small && !entries.some((entry) => sameModel(entry, small))) entries.push(small)
  // createProvider checks the list (a model listed twice...) before anything is said about it.
  const provider = createProvider({
    models: entries.map(({ providerID, modelID, language, info }) => ({
      providerID,
      modelID,
      language,
      info,
    })),
    default: refOf(first),
    ...(small ? { small: refOf(small) } : {}),
  })
  for (const entry of entries) if (entry.unpriced) warnUnknownModel(entry, options.logger)
  return provider
}

type Entry = ModelRef & { language: LanguageModelObject } & ReturnType<typeof resolveModelInfo>

function entryOf(input: ModelInput): Entry {
  const { language, info } = "language" in input ? input : { language: input, info: undefined }
  const resolved = resolveModelInfo(modelRefOf(language), info)
  return { providerID: resolved.info.providerID, modelID: resolved.info.id, language, ...resolved }
}

function sameModel(a: ModelRef, b: ModelRef): boolean {
  return a.providerID === b.providerID && a.modelID === b.modelID
}

function refOf(entry: Entry): ModelRef {
  return { providerID: entry.providerID, modelID: entry.modelID }
}

function conflictOf(options: ModelOptions): { path: string; message: string } | undefined {
  if (options.model !== undefined && options.models !== undefined)
    return { path: "models", message: "give either model (one) or models (several), not both" }
  const listed = options.model !== undefined ? "model" : options.models !== undefined ? "models" : undefined
  if (options.provider && listed)
    return {
      path: "provider",
      message: `give either provider or ${listed}: a provider already lists its models (createProvider)`,
    }
  if (options.smallModel !== undefined && !listed)
    return {
      path: "smallModel",
      message: options.provider
        ? "goes with model or models; with a provider, use createProvider's small"
        : "goes with model or models",
    }
  return undefined
}
