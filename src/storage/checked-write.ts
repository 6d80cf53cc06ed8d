import type { Storage, StorageWrite } from "./port.js"

/**
 * The key of the write path this package's adapters add beside `write`. Not exported from the
 * package: a host's storage, and a host calling an adapter, only ever use `write`.
 */
export const writeChecked: unique symbol = Symbol("agentloop.writeChecked")

/**
 * One write of a batch for that path. `checked` when the runtime assembled its row from values
 * that were already checked (the processor's step-start, text and step-finish parts, its
 * assistant message, the session totals of `recordUsage`): the adapter skips the row's schema
 * parse, the largest part of a step's write cost, and still encodes it (see encodeWrites).
 */
export type CheckedWrite = { write: StorageWrite; checked: boolean }

/**
 * A storage as the runtime writes to it: one of this package's adapters also takes a batch
 * whose writes say which rows are already checked, atomic as `write` is; any other storage
 * takes `write` alone.
 */
export type CheckedStorage = Storage & {
  [writeChecked]?: (writes: readonly CheckedWrite[]) => Promise<void>
}

/**
 * The storage's checked write path, when it has one and its `write` is the one defined beside
 * it. A `write` replaced or wrapped (a subclass's override, an instance's own, a Proxy's) is
 * the host's: it sees every batch, so the runtime's go to it as plain writes.
 */
export function checkedWriteOf(storage: CheckedStorage): CheckedStorage[typeof writeChecked] {
  const checked = storage[writeChecked]
  if (checked === undefined) return undefined
  const owner = definedOn(storage, writeChecked) as CheckedStorage | undefined
  return owner !== undefined && storage.write === owner.write ? checked : undefined
}

/** The object of `value`'s prototype chain (itself included) that defines `key`. */
function definedOn(value: object, key: PropertyKey): object | undefined {
  for (let current: object | null = value; current !== null; current = Object.getPrototypeOf(current))
    if (Object.hasOwn(current, key)) return current
  return undefined
}
