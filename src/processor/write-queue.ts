/**
 * Runs writes one after another in the order they were asked for. A tool's progress update
 * and the stream's own writes to the same part can then never land out of order.
 */
export function createWriteQueue() {
  let tail: Promise<unknown> = Promise.resolve()
  return {
    run<T>(write: () => Promise<T>): Promise<T> {
      const next = tail.then(write)
      tail = next.catch(() => undefined)
      return next
    },
  }
}
