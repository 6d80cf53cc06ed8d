import { createGathering } from "./gathering.js"

/** A stored row of a table whose rows have an ID: its ID, stamp and JSON text. */
export type Row = { id: string; stamp: string | null; data: string }

type Waiting = { id: string; resolve: (row: Row | undefined) => void; reject: (error: unknown) => void }

/** The most sessions one read asks for. */
export const MAX_SESSIONS_READ = 512

/**
 * Reads of session rows by ID, sent together (see gathering.ts): a read that goes by itself
 * runs `one`, the reads that wait for the same statement run `many` with their IDs, once each.
 * A failure fails every read of its statement, as it would each alone.
 */
export function createSessionReads(
  one: (id: string) => Promise<Row | undefined>,
  many: (ids: string[]) => Promise<Row[]>,
) {
  const gathering = createGathering<Waiting>(async (waiting) => {
    const reads = waiting.splice(0, MAX_SESSIONS_READ)
    try {
      if (reads.length === 1) {
        reads[0]!.resolve(await one(reads[0]!.id))
        return
      }
      const rows = new Map(
        (await many([...new Set(reads.map((read) => read.id))])).map((row) => [row.id, row]),
      )
      for (const read of reads) read.resolve(rows.get(read.id))
    } catch (error) {
      for (const read of reads) read.reject(error)
    }
  })
  return {
    get(id: string): Promise<Row | undefined> {
      return new Promise((resolve, reject) => gathering.add({ id, resolve, reject }))
    },
    sendAll: gathering.sendAll,
    drained: gathering.drained,
  }
}
