import { createGathering } from "./gathering.js"

/** The most reads one statement answers. */
export const MAX_BATCHED_READS = 256

/** The answer of a read whose part of a shared statement failed (a row that did not decode). */
export class FailedRead {
  constructor(readonly error: unknown) {}
}

type Waiting<K, R> = { key: K; id: string; resolve: (result: R) => void; reject: (error: unknown) => void }

/**
 * Reads of one kind, sent together (see gathering.ts): a read that goes by itself runs `one`;
 * the reads that wait for the same statement run `many` with their keys, each key once (a read
 * of a key already in the statement waits for the next). `idOf` names a key. A key `many`
 * found nothing for is answered by `absent` (which may tell a missing session from an empty
 * answer); one it answered with a FailedRead fails alone. A failure of the statement fails
 * every read in it, as it would each alone.
 */
export function createBatchedReads<K, R>(options: {
  idOf: (key: K) => string
  one: (key: K) => Promise<R>
  many: (keys: K[]) => Promise<Map<string, R | FailedRead>>
  absent: (key: K) => Promise<R>
}) {
  const { idOf, one, many, absent } = options
  const gathering = createGathering<Waiting<K, R>>(async (waiting) => {
    const ids = new Set<string>()
    let count = 0
    while (count < waiting.length && count < MAX_BATCHED_READS && !ids.has(waiting[count]!.id))
      ids.add(waiting[count++]!.id)
    const reads = waiting.splice(0, count)
    try {
      if (reads.length === 1) {
        reads[0]!.resolve(await one(reads[0]!.key))
        return
      }
      const found = await many(reads.map((read) => read.key))
      const answered = reads.map((read) => {
        const result = found.get(read.id)
        if (result instanceof FailedRead) return read.reject(result.error)
        if (result !== undefined) return read.resolve(result)
        return absent(read.key).then(read.resolve, read.reject)
      })
      await Promise.all(answered)
    } catch (error) {
      for (const read of reads) read.reject(error)
    }
  })
  return {
    read(key: K): Promise<R> {
      return new Promise((resolve, reject) => gathering.add({ key, id: idOf(key), resolve, reject }))
    },
    sendAll: gathering.sendAll,
    drained: gathering.drained,
  }
}
