import { encodeTime } from "../id/base32.js"
import { timestamp } from "../id/identifier.js"
import type { Storage } from "../storage/port.js"

/**
 * The newest ID in a session, message or part: every new message must sort after it, or a
 * loaded history would put it in the wrong place. Undefined for an empty session.
 */
export async function sessionFloor(storage: Storage, sessionID: string): Promise<string | undefined> {
  const [latest] = await storage.listMessages(sessionID, { limit: 1 })
  if (!latest) return undefined
  return latest.parts.reduce((max, part) => maxID(max, part.id), latest.info.id)
}

// IDs of different kinds compare by their ULID body: the prefixes differ but all are 3 letters.
export function maxID(a: string, b: string): string {
  return a.slice(4) >= b.slice(4) ? a : b
}

/**
 * The floor of an empty session: a message ID at the millisecond the session was created, so its
 * first message is never older than the session even when the clock stepped back (a prompt's
 * own messageID must not be: see assertNewMessageID).
 */
export function creationFloor(sessionID: string): string {
  return `msg_${encodeTime(timestamp(sessionID))}${"0".repeat(16)}`
}
