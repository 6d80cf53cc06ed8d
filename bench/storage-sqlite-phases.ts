import Database from "better-sqlite3"
import { decodeRow } from "../src/storage/rows.js"
import { PART_PAGE } from "../src/storage/sqlite/sqlite-storage.js"
import { SQL } from "../src/storage/sqlite/statements.js"
import { median } from "./report.js"

/**
 * Where an SQLite load spends its time: the adapter's own pipeline replayed on a second,
 * read-only connection with a timer around each step, so the phases add up to about one load.
 * The queries are the messages, then the parts in pages (as arrays of columns, as the adapter
 * reads them with better-sqlite3); each page is parsed before the next is read; attaching puts
 * each part on its message. Garbage collection counts towards whichever step triggers it. The
 * zod decode of every row, which rows carrying the current stamp skip, is timed apart.
 */
export function profileSqliteLoad(file: string, sessionID: string, loads: number) {
  const db = new Database(file, { readonly: true })
  const messages = db.prepare(SQL.listMessages)
  const firstParts = db.prepare(SQL.listSessionParts).raw(true)
  const nextParts = db.prepare(SQL.listSessionPartsAfter).raw(true)
  type PartTuple = [messageID: string, id: string, stamp: number | null, data: string]
  const phases = {
    query: [] as number[],
    parse: [] as number[],
    attach: [] as number[],
    decode: [] as number[],
  }
  let queries = 0
  for (let run = 0; run < loads; run++) {
    let query = 0
    let parse = 0
    let attach = 0
    let start = performance.now()
    const rows = messages.all(sessionID) as { id: string; data: string }[]
    query += performance.now() - start
    start = performance.now()
    const infos = rows.map((row) => JSON.parse(row.data) as unknown)
    parse += performance.now() - start
    start = performance.now()
    const byID = new Map<string, { info: unknown; parts: unknown[] }>()
    for (const [index, row] of rows.entries()) byID.set(row.id, { info: infos[index], parts: [] })
    attach += performance.now() - start
    queries = 1
    let page: PartTuple[] | undefined
    for (;;) {
      start = performance.now()
      const last = page?.[page.length - 1]
      page = (
        last === undefined
          ? firstParts.all(sessionID, PART_PAGE)
          : nextParts.all(sessionID, last[0], last[1], PART_PAGE)
      ) as PartTuple[]
      queries++
      query += performance.now() - start
      start = performance.now()
      const values = page.map((row) => JSON.parse(row[3]) as unknown)
      parse += performance.now() - start
      start = performance.now()
      for (const [index, row] of page.entries()) byID.get(row[0])?.parts.push(values[index])
      attach += performance.now() - start
      if (page.length < PART_PAGE) break
    }
    phases.query.push(query)
    phases.parse.push(parse)
    phases.attach.push(attach)
    start = performance.now()
    for (const message of byID.values()) {
      decodeRow("message", (message.info as { id: string }).id, message.info)
      for (const part of message.parts) decodeRow("part", (part as { id: string }).id, part)
    }
    phases.decode.push(performance.now() - start)
  }
  db.close()
  return {
    queries,
    query: median(phases.query),
    parse: median(phases.parse),
    attach: median(phases.attach),
    decode: median(phases.decode),
  }
}

/** Takes the row stamps off, as if another writer or a version before stamps had written every row. */
export function removeStamps(file: string) {
  const db = new Database(file)
  for (const table of ["session", "message", "part"]) db.prepare(`UPDATE ${table} SET stamp = NULL`).run()
  db.close()
}
