import { z } from "zod"
import type { ModelRef } from "../message/part.js"
import { assumedCapabilities, catalogueInfo, catalogueSource } from "./catalogue.js"
import { consoleLogger, type Logger } from "./logger.js"
import { ModelInfo } from "./model-info.js"

/**
 * What a host says about a model, over what the catalogue says. Each field given replaces the
 * catalogue's (`limit` and `cost` whole); `capabilities` replaces field by field. `providerID` and
 * `id` rename the model (by default its AI SDK provider and model ID).
 */
export const ModelInfoOverride = z.strictObject({
  providerID: z.string().min(1).optional(),
  id: z.string().min(1).optional(),
  name: z.string().optional(),
  limit: ModelInfo.shape.limit,
  cost: ModelInfo.shape.cost,
  capabilities: ModelInfo.shape.capabilities.partial().optional(),
})
export type ModelInfoOverride = z.input<typeof ModelInfoOverride>

/**
 * The info of the model `ref` (its AI SDK IDs): the catalogue's, with `override` on top. `unpriced`:
 * neither the catalogue nor the override knows its prices.
 */
export function resolveModelInfo(
  ref: ModelRef,
  override: ModelInfoOverride = {},
): { info: ModelInfo; unpriced: boolean } {
  const known = catalogueInfo(ref)
  const base: ModelInfo = known ?? {
    providerID: ref.providerID,
    id: ref.modelID,
    name: ref.modelID,
    capabilities: assumedCapabilities(ref),
  }
  const limit = override.limit ?? base.limit
  // As given, `cost` may leave out the cache prices, which are then 0.
  const cost = override.cost === undefined ? base.cost : ModelInfo.shape.cost.parse(override.cost)
  const info: ModelInfo = {
    providerID: override.providerID ?? base.providerID,
    id: override.id ?? base.id,
    name: override.name ?? base.name,
    ...(limit ? { limit } : {}),
    ...(cost ? { cost } : {}),
    capabilities: { ...base.capabilities, ...override.capabilities },
  }
  return { info, unpriced: info.cost === undefined }
}

/** Says, once per resolved model, that the catalogue does not know it and what follows. */
export function warnUnknownModel(ref: ModelRef, logger: Logger = consoleLogger): void {
  logger.warn(
    `agentloop: the model ${ref.providerID}/${ref.modelID} is not in the model catalogue ` +
      `(${catalogueSource.package} ${catalogueSource.version}): its cost is recorded as unknown ` +
      "(costUnknown) and compaction waits for the provider's context-overflow error. " +
      "Pass { language, info: { cost, limit } } to give its prices and window.",
  )
}
