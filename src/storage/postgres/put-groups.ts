import { createGrouping, type Pending, sendGroup } from "../grouping.js"
import { STALL_MS } from "./options.js"
import { mergeable, mergeSteps, type RowGroup, type Step } from "./row-group.js"

/** The most writes one merged statement carries: its arrays stay a few hundred rows long. */
export const MAX_GROUP_WRITES = 512

/** A replayable batch (see isReplayable) waiting for its statement, and how it runs alone. */
type Waiting = Pending & { step: Step; alone: () => Promise<void> }

/**
 * Replayable batches of one PostgresStorage sent together (a group, see grouping.ts): the
 * batches that wait behind the same statement go as one (`merged`, see mergeSteps), as many as
 * can without writing a row twice; a batch that goes by itself runs `alone`, as it would
 * without this. Each batch stays atomic: a statement applies all its rows or none. A merged
 * statement that fails on one batch's account runs its batches again alone (sendGroup).
 */
export function createPutGroups(merged: (group: RowGroup) => Promise<void>) {
  const grouping = createGrouping<Waiting>({
    flush: { when: "behind", stallMs: STALL_MS },
    take: (waiting) =>
      mergeable(
        waiting.map((batch) => batch.step),
        MAX_GROUP_WRITES,
      ),
    send: (group) =>
      sendGroup(group, {
        merged: (batches) => merged(mergeSteps(batches.map((batch) => batch.step))),
        alone: (batch) => batch.alone(),
        answer: () => undefined,
      }),
  })
  return {
    /** Sends `step` with the batches waiting with it; `alone` runs its batch without them. */
    put(step: Step, alone: () => Promise<void>): Promise<void> {
      return new Promise((resolve, reject) => grouping.add({ step, alone, resolve, reject }))
    },
    sendAll: grouping.sendAll,
    drained: grouping.drained,
  }
}
