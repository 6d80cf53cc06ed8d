import { StorageError } from "../storage-error.js"
import { createGathering } from "./gathering.js"
import { mergeSteps, type RowGroup, type Step } from "./row-group.js"

/** The most writes one merged statement carries: its arrays stay a few hundred rows long. */
export const MAX_GROUP_WRITES = 512

/** A replayable batch (see isReplayable) waiting for its statement, and how it runs alone. */
type Waiting = {
  step: Step
  alone: () => Promise<void>
  resolve: () => void
  reject: (error: unknown) => void
}

/**
 * Replayable batches of one PostgresStorage, sent together (see gathering.ts): the batches that
 * wait for the same statement go as one (`merged`, see mergeSteps), as many as can without
 * writing a row twice; a batch that goes by itself runs `alone`, as it would without this. Each
 * batch stays atomic: a statement applies all its rows or none.
 *
 * When a merged statement fails on one batch's account (a missing session or message, or any
 * error that is no fault of the database), its batches run again alone, one after another in
 * their order, so that each gets its own outcome. A fault (a StorageError: the connection lost
 * past the retries, the storage closed) fails them all at once, as it would each.
 */
export function createPutGroups(merged: (group: RowGroup) => Promise<void>) {
  const settle = (batch: Waiting, outcome: Promise<void>) => outcome.then(batch.resolve, batch.reject)

  async function sendMerged(batches: Waiting[], group: RowGroup): Promise<void> {
    try {
      await merged(group)
    } catch (error) {
      if (StorageError.isInstance(error)) {
        for (const batch of batches) batch.reject(error)
        return
      }
      for (const batch of batches) await settle(batch, batch.alone())
      return
    }
    for (const batch of batches) batch.resolve()
  }

  const gathering = createGathering<Waiting>((waiting) => {
    if (waiting.length === 1) {
      const batch = waiting.pop()!
      return settle(batch, batch.alone())
    }
    const { group, count } = mergeSteps(
      waiting.map((batch) => batch.step),
      MAX_GROUP_WRITES,
    )
    const batches = waiting.splice(0, count)
    return count === 1 ? settle(batches[0]!, batches[0]!.alone()) : sendMerged(batches, group)
  })

  return {
    /** Sends `step` with the batches waiting with it; `alone` runs its batch without them. */
    put(step: Step, alone: () => Promise<void>): Promise<void> {
      return new Promise((resolve, reject) => gathering.add({ step, alone, resolve, reject }))
    },
    sendAll: gathering.sendAll,
    drained: gathering.drained,
  }
}
