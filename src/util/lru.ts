/**
 * A map that keeps at most `limit` entries: setting or reading an entry makes it the newest, and
 * the oldest goes when the map is full. A Map iterates in insertion order, so moving an entry to
 * the end (delete, then set) is all the bookkeeping a bounded index of a long-lived runtime needs.
 */
export function createLru<K, V>(limit: number) {
  const entries = new Map<K, V>()
  /** Makes the entry the newest; false when absent. */
  function touch(key: K): boolean {
    if (!entries.has(key)) return false
    const value = entries.get(key) as V
    entries.delete(key)
    entries.set(key, value)
    return true
  }
  return {
    /** The value, made the newest; undefined when absent. */
    get: (key: K): V | undefined => (touch(key) ? entries.get(key) : undefined),
    /** Whether the key is kept, made the newest if so. */
    has: touch,
    /** Stores the value as the newest, dropping the oldest entry beyond the limit. */
    set(key: K, value: V): void {
      entries.delete(key)
      entries.set(key, value)
      if (entries.size > limit) entries.delete(entries.keys().next().value as K)
    },
    delete: (key: K): boolean => entries.delete(key),
    get size(): number {
      return entries.size
    },
  }
}

/** A map `createLru` made. */
export type Lru<K, V> = ReturnType<typeof createLru<K, V>>
