import { createLru } from "../util/lru.js"

/** How many message IDs the index keeps: the newest, so that it stays small in a long-lived runtime. */
const LIMIT = 10_000

/**
 * The session of each message this runtime stored recently. Storage keys messages by session
 * and cannot find a message by its ID alone, so a prompt whose caller-chosen ID is another
 * session's is caught here when that message is recent, and by its time (see
 * assertNewMessageID) when it is older.
 */
export function createMessageOwners() {
  const owners = createLru<string, string>(LIMIT)
  return {
    record(messageID: string, sessionID: string): void {
      owners.set(messageID, sessionID)
    },
    /** The session a recently stored message belongs to; undefined when not seen. */
    ownerOf: (messageID: string): string | undefined => owners.get(messageID),
  }
}

export type MessageOwners = ReturnType<typeof createMessageOwners>
