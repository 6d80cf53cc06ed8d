import type { EncodedWrite } from "../rows.js"
import { StorageError } from "../storage-error.js"

type Batch = readonly EncodedWrite[]
type Waiting = { batch: Batch; resolve: () => void; reject: (error: unknown) => void }

/**
 * Commits batches written close together in one transaction: those of one run of microtasks,
 * or, once batches come several at a time, those of one turn of the event loop. A write
 * transaction's fixed cost (BEGIN IMMEDIATE and the WAL commit, 40 to 55 µs here) is most of a
 * small batch's, and a process running many sessions writes several small batches a step for
 * each (bench/README.md: 1.8 times the steps per second for 1,000 sessions).
 *
 * Each batch stays atomic and none is acknowledged before the transaction holding it commits.
 * A group that fails on one batch's account (a missing session, a constraint) is run again batch
 * by batch, so that only that batch fails; a fault of the database (a lock held past the retries,
 * a full disk, the connection closed) fails every batch of the group, which would each have met it.
 */
export function createWriteGroups(commit: (batches: readonly Batch[]) => unknown) {
  let waiting: Waiting[] = []
  // Whether batches came several at a time last: then a group waits for the end of the turn to
  // gather the others' (setImmediate); a writer alone is committed once its microtasks have run,
  // without waiting for the end of the turn (which added about 0.2 ms to a step on the loop bench).
  let gathering = false

  async function run(group: Waiting[]): Promise<void> {
    try {
      await commit(group.map((entry) => entry.batch))
      for (const entry of group) entry.resolve()
    } catch (error) {
      if (group.length === 1 || StorageError.isInstance(error)) {
        for (const entry of group) entry.reject(error)
        return
      }
      for (const entry of group) await run([entry])
    }
  }

  return {
    /** Resolves once `batch` is committed, with the others of its group. */
    add(batch: Batch): Promise<void> {
      return new Promise((resolve, reject) => {
        if (waiting.length === 0) (gathering ? setImmediate : queueMicrotask)(flush)
        waiting.push({ batch, resolve, reject })
      })
    },
    flush,
  }

  /** Commits what waits now (the scheduled flush, and `close()` before it closes). */
  function flush(): Promise<void> {
    if (waiting.length === 0) return Promise.resolve()
    const group = waiting
    waiting = []
    gathering = group.length > 1
    return run(group)
  }
}
