import type { JSONValue, ProviderMetadata } from "ai"

type JSONObject = ProviderMetadata[string]

/**
 * Part metadata holds what the provider reported for the part, keyed by provider
 * (`{ anthropic: { signature } }`, `{ openai: { itemId } }`), sometimes beside flags of ours
 * (`providerExecuted`). Only the provider-keyed objects can go back to the provider, and only the
 * JSON inside them: a memory store keeps values (`undefined`, functions) that storage would not.
 */
export function toProviderMetadata(
  metadata: Record<string, unknown> | undefined,
): ProviderMetadata | undefined {
  if (!metadata) return undefined
  const entries = Object.entries(metadata).flatMap(([provider, value]) => {
    const object = toJSONObject(value)
    return object ? [[provider, object] as const] : []
  })
  // fromEntries defines own properties, so a stored "__proto__" key cannot reach the prototype.
  return entries.length > 0 ? Object.fromEntries(entries) : undefined
}

function toJSONObject(value: unknown): JSONObject | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined
  return Object.fromEntries(
    Object.entries(value).flatMap(([key, item]: [string, unknown]) => {
      const json = toJSONValue(item)
      return json === undefined ? [] : [[key, json] as const]
    }),
  )
}

function toJSONValue(value: unknown): JSONValue | undefined {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined
  if (Array.isArray(value)) return value.map((item: unknown) => toJSONValue(item) ?? null)
  return toJSONObject(value)
}
