/**
 * Runs operations one at a time, in the order they were queued, whatever the callers await:
 * a tool's progress update and the stream's own write to the same part never land out of
 * order, and one snapshot's track, patch and revert never interleave. A failed operation does
 * not stop the ones queued after it.
 */
export function createSerialQueue() {
  let tail: Promise<unknown> = Promise.resolve()
  return {
    run<T>(operation: () => Promise<T>): Promise<T> {
      const result = tail.then(operation)
      tail = result.catch(() => undefined)
      return result
    },
  }
}

export type SerialQueue = ReturnType<typeof createSerialQueue>
