import { createGrouping, type Pending, sendGroup } from "../grouping.js"
import type { EncodedWrite } from "../rows.js"

type Batch = readonly EncodedWrite[]
type Waiting = Pending & { batch: Batch }

/**
 * Commits batches written close together in one transaction (a group, see grouping.ts): those of
 * one run of microtasks, or, once batches come several at a time, those of one turn of the event
 * loop. A write transaction's fixed cost (BEGIN IMMEDIATE and the WAL commit) is most of a small
 * batch's, and a process running many sessions writes several small batches a step for each
 * (figures: bench/README.md).
 *
 * Each batch stays atomic and none is acknowledged before the transaction holding it commits.
 * A group that fails on one batch's account is committed again batch by batch (sendGroup).
 */
export function createWriteGroups(commit: (batches: readonly Batch[]) => void | Promise<void>) {
  const grouping = createGrouping<Waiting>({
    flush: { when: "turn" },
    send: (group) =>
      sendGroup(group, {
        merged: (calls) => commit(calls.map((call) => call.batch)),
        alone: (call) => commit([call.batch]),
        answer: () => undefined,
      }),
  })
  return {
    /** Resolves once `batch` is committed, with the others of its group. */
    add(batch: Batch): Promise<void> {
      return new Promise((resolve, reject) => grouping.add({ batch, resolve, reject }))
    },
    /** Commits what waits now (`close()` does, before it closes). */
    sendAll: grouping.sendAll,
  }
}
