/**
 * Provider metadata that arrives in pieces over a part's life (a signature on one delta, an item
 * ID on the end), merged per provider so no piece replaces another.
 */
export function mergeMetadata(
  current: Record<string, unknown> | undefined,
  next: Record<string, unknown>,
): Record<string, unknown> {
  const merged = { ...current }
  for (const [provider, value] of Object.entries(next)) {
    const previous = merged[provider]
    merged[provider] = isRecord(previous) && isRecord(value) ? { ...previous, ...value } : value
  }
  return merged
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}
