import { NotFoundError } from "../../error/not-found.js"
import { type EncodedWrite, refuseParentCycle } from "../rows.js"
import type { Connection } from "./connection.js"
import { SQL } from "./statements.js"

/**
 * Applies one validated write (the `index`th of its batch) inside the batch's transaction,
 * stamping the rows it puts with `stamp` (see rowStamp). `json` is the text of the row or value
 * it puts (see encodeWrites). Puts are upserts by ID and removes name what they remove, so a
 * batch that did not commit can be run again as it is.
 */
export function applyWrite(
  db: Connection,
  { write, json }: EncodedWrite,
  index: number,
  stamp: number,
): void {
  switch (write.type) {
    case "session.put": {
      const { id, parentID } = write.info
      if (parentID !== undefined) requireSession(db, parentID)
      refuseParentCycle(
        write.info,
        index,
        (sessionID) =>
          db.get<{ parent_id: string | null }>(SQL.getSessionParent, sessionID)?.parent_id ?? undefined,
      )
      db.run(SQL.putSession, id, parentID ?? null, json!, stamp)
      return
    }
    case "session.remove":
      // Foreign keys cascade to its messages, their parts, and its descendant sessions.
      requireSession(db, write.sessionID)
      db.run(SQL.removeSession, write.sessionID)
      return
    case "message.put":
      requireSession(db, write.info.sessionID)
      db.run(SQL.putMessage, write.info.sessionID, write.info.id, json!, stamp)
      return
    case "message.remove":
      requireMessage(db, write.sessionID, write.messageID)
      db.run(SQL.removeMessage, write.sessionID, write.messageID)
      return
    case "part.put": {
      const { id, sessionID, messageID } = write.part
      requireMessage(db, sessionID, messageID)
      db.run(SQL.putPart, sessionID, messageID, id, json!, stamp)
      return
    }
    case "part.remove":
      requireMessage(db, write.sessionID, write.messageID)
      if (!db.get(SQL.hasPart, write.sessionID, write.messageID, write.partID)) {
        throw NotFoundError.of("Part", write.partID)
      }
      db.run(SQL.removePart, write.sessionID, write.messageID, write.partID)
      return
    case "value.put":
      db.run(SQL.putValue, write.key, json!)
      return
    case "value.remove":
      db.run(SQL.removeValue, write.key)
      return
  }
}

export function requireSession(db: Connection, sessionID: string): void {
  if (!db.get(SQL.hasSession, sessionID)) throw NotFoundError.of("Session", sessionID)
}

function requireMessage(db: Connection, sessionID: string, messageID: string): void {
  if (db.get(SQL.hasMessage, sessionID, messageID)) return
  // Name the session when it is the session that is missing, as MemoryStorage does.
  requireSession(db, sessionID)
  throw NotFoundError.of("Message", messageID)
}
