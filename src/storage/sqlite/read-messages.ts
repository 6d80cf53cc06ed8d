import type { WithParts } from "../../message/info.js"
import type { Part } from "../../message/part.js"
import { requireSession } from "./apply-write.js"
import type { Connection } from "./connection.js"
import { SQL } from "./statements.js"

/** A row's stamp as a driver returns it: a bigint when the connection reads safe integers. */
export type Stamp = number | bigint | null
export type Row = { id: string; stamp: Stamp; data: string }
/** A part row of a session listing, read as an array (see Connection.arrays): the columns in select order. */
type PartTuple = [messageID: string, id: string, stamp: Stamp, data: string]

/**
 * How many parts a listing reads per query. Parsing each page before reading the next lets the
 * JSON text of a long session die young, where reading all of it first had the garbage
 * collector copy it around (figures: bench/README.md, Storage).
 */
export const PART_PAGE = 1000

export type Decode = {
  message(id: string, stamp: Stamp, data: string): WithParts["info"]
  part(id: string, stamp: Stamp, data: string): Part
}

/**
 * A session's messages (all, or the newest `limit`, a SQLite LIMIT), oldest first, with their
 * parts; run inside one read transaction. The parts are read page by page, each page decoded and
 * attached to its message (parts come in message order) before the next is read.
 */
export function readMessages(db: Connection, decode: Decode, sessionID: string, limit: number | undefined) {
  const rows =
    limit === undefined
      ? db.all<Row>(SQL.listMessages, sessionID)
      : db.all<Row>(SQL.listNewestMessages, sessionID, limit).reverse()
  // A session always exists when it has messages, so only an empty listing pays for the check.
  if (rows.length === 0) {
    requireSession(db, sessionID)
    return []
  }
  const byID = new Map<string, WithParts>()
  const messages = rows.map((row) => {
    const message: WithParts = { info: decode.message(row.id, row.stamp, row.data), parts: [] }
    byID.set(row.id, message)
    return message
  })
  let page =
    limit === undefined
      ? db.arrays<PartTuple>(SQL.listSessionParts, sessionID, PART_PAGE)
      : db.arrays<PartTuple>(SQL.listSessionPartsFrom, sessionID, rows[0]!.id, PART_PAGE)
  for (;;) {
    for (const [messageID, id, stamp, data] of page)
      byID.get(messageID)?.parts.push(decode.part(id, stamp, data))
    if (page.length < PART_PAGE) return messages
    const [messageID, id] = page[page.length - 1]!
    page = db.arrays<PartTuple>(SQL.listSessionPartsAfter, sessionID, messageID, id, PART_PAGE)
  }
}
