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
