import type { Attributes, AttributeValue, TelemetryUsage } from "./types.js"

/** Which of the optional attributes the settings let spans carry. */
export type Recording = { inputs: boolean; outputs: boolean }

/**
 * Sets `key` unless the value is null or undefined, with arrays kept only when their primitive
 * items share one type, as the AI SDK's `selectTelemetryAttributes` does.
 */
export function put(attributes: Attributes, key: string, value: unknown): void {
  const sanitized = sanitize(value)
  if (sanitized !== undefined) attributes[key] = sanitized
}

function sanitize(value: unknown): AttributeValue | undefined {
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return value
  if (!Array.isArray(value)) return undefined
  const types = new Set(value.filter(isPrimitive).map((item) => typeof item))
  if (types.size !== 1) return undefined
  const [type] = types
  return value.filter((item) => typeof item === type) as AttributeValue
}

function isPrimitive(value: unknown): value is string | number | boolean {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean"
}

/**
 * JSON for an attribute, or undefined when the value has none (undefined) or cannot be written
 * (a cycle, a bigint). The AI SDK would throw there; a span is not worth failing a call for.
 */
export function json(value: unknown): string | undefined {
  try {
    return JSON.stringify(value)
  } catch {
    return undefined
  }
}

/** The operation attributes every AI SDK span starts with. */
export function operationAttributes(operationId: string, functionId: string | undefined): Attributes {
  const attributes: Attributes = {}
  put(attributes, "operation.name", functionId === undefined ? operationId : `${operationId} ${functionId}`)
  put(attributes, "resource.name", functionId)
  put(attributes, "ai.operationId", operationId)
  put(attributes, "ai.telemetry.functionId", functionId)
  return attributes
}

export function metadataAttributes(
  attributes: Attributes,
  metadata: Record<string, unknown> | undefined,
): void {
  for (const [key, value] of Object.entries(metadata ?? {}))
    put(attributes, `ai.telemetry.metadata.${key}`, value)
}

/** The step's token counts, under the names (old and new) the AI SDK records them by. */
export function usageAttributes(attributes: Attributes, usage: TelemetryUsage): void {
  put(attributes, "ai.usage.inputTokens", usage.inputTokens)
  put(attributes, "ai.usage.inputTokenDetails.noCacheTokens", usage.inputTokenDetails?.noCacheTokens)
  put(attributes, "ai.usage.inputTokenDetails.cacheReadTokens", usage.inputTokenDetails?.cacheReadTokens)
  put(attributes, "ai.usage.inputTokenDetails.cacheWriteTokens", usage.inputTokenDetails?.cacheWriteTokens)
  put(attributes, "ai.usage.outputTokens", usage.outputTokens)
  put(attributes, "ai.usage.outputTokenDetails.textTokens", usage.outputTokenDetails?.textTokens)
  put(attributes, "ai.usage.outputTokenDetails.reasoningTokens", usage.outputTokenDetails?.reasoningTokens)
  put(attributes, "ai.usage.totalTokens", usage.totalTokens)
  put(attributes, "ai.usage.reasoningTokens", usage.outputTokenDetails?.reasoningTokens)
  put(attributes, "ai.usage.cachedInputTokens", usage.inputTokenDetails?.cacheReadTokens)
}
