import { createSerialQueue, type SerialQueue } from "../util/serial-queue.js"

/**
 * Lets one read-modify-write of a file run at a time. `write` and `edit` read a file, ask a
 * human, then write it: two such calls on one file in one step would each write back the copy
 * they read, and one change would be lost. A lock is shared by every tool made by one
 * `codingTools()` call, so it covers every session and sub-agent of the runtime using them.
 */
export type PathLock = {
  /** Runs `work` once every earlier call on the same path has settled; other paths do not wait. */
  run<T>(path: string, work: () => Promise<T>): Promise<T>
}

/**
 * A new PathLock, shared by nothing yet. `codingTools()` makes one for its tools; pass one
 * `lock` to `writeTool` and `editTool` made on their own so their changes to one file queue.
 */
export function createPathLock(): PathLock {
  const queues = new Map<string, { queue: SerialQueue; waiting: number }>()
  return {
    async run(path, work) {
      const entry = queues.get(path) ?? { queue: createSerialQueue(), waiting: 0 }
      queues.set(path, entry)
      entry.waiting++
      try {
        return await entry.queue.run(work)
      } finally {
        // Forgotten once idle, so a long-lived runtime does not keep one entry per file it touched.
        if (--entry.waiting === 0) queues.delete(path)
      }
    },
  }
}
