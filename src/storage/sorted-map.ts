/**
 * A Map that also keeps its keys sorted (JavaScript string order), so that a listing of the
 * newest few needs no sort of them all: a session's newest message is read at every step. Keys
 * mostly arrive in order (IDs ascend), so an insert is usually a push.
 */
export class SortedMap<V> {
  readonly #values = new Map<string, V>()
  readonly #keys: string[] = []

  get(key: string): V | undefined {
    return this.#values.get(key)
  }

  set(key: string, value: V): void {
    if (!this.#values.has(key)) this.#keys.splice(this.#insertionPoint(key), 0, key)
    this.#values.set(key, value)
  }

  delete(key: string): boolean {
    if (!this.#values.delete(key)) return false
    this.#keys.splice(this.#insertionPoint(key), 1)
    return true
  }

  /** The keys in order; with `last`, only the last that many. */
  keys(last?: number): string[] {
    return last === undefined ? this.#keys.slice() : this.#keys.slice(Math.max(0, this.#keys.length - last))
  }

  /** Where `key` is or would go: the first index whose key is not below it. */
  #insertionPoint(key: string): number {
    const keys = this.#keys
    if (keys.length === 0 || keys[keys.length - 1]! < key) return keys.length
    let low = 0
    let high = keys.length
    while (low < high) {
      const middle = (low + high) >>> 1
      if (keys[middle]! < key) low = middle + 1
      else high = middle
    }
    return low
  }
}
