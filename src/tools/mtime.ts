import type { Operations } from "./operations.js"

/** Paths with their modification times, newest first (then by name); a vanished file counts as oldest. */
export async function newestFirst<T extends { absolute: string }>(
  operations: Operations,
  items: readonly T[],
): Promise<(T & { mtimeMs: number })[]> {
  const dated = await Promise.all(
    items.map(async (item) => ({ ...item, mtimeMs: (await operations.stat(item.absolute))?.mtimeMs ?? 0 })),
  )
  return dated.sort((a, b) => b.mtimeMs - a.mtimeMs || a.absolute.localeCompare(b.absolute))
}
