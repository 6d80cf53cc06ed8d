/** Whether `items` begins with the very same elements as `prefix` (compared by identity). */
export function startsWith<T>(items: readonly T[], prefix: readonly T[]): boolean {
  if (prefix.length > items.length) return false
  for (let index = 0; index < prefix.length; index++) if (items[index] !== prefix[index]) return false
  return true
}
