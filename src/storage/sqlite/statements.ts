/**
 * The stamp an upsert leaves on a row it updates: the new stamp, with its sign flipped when the
 * row already had it, so that every write through SqliteStorage changes the stamp and the
 * `*_unstamp` triggers (migration 2) can tell an update by anyone else.
 */
function flipped(table: "session" | "message" | "part"): string {
  return `CASE WHEN ${table}.stamp = excluded.stamp THEN -excluded.stamp ELSE excluded.stamp END`
}

/**
 * Every statement SqliteStorage runs, in one place so that tests can check their query plans.
 * Listings read keys in index order (see migrations.ts), so no query needs a sort step.
 */
export const SQL = {
  begin: "BEGIN",
  beginWrite: "BEGIN IMMEDIATE",
  commit: "COMMIT",
  getSession: "SELECT stamp, data FROM session WHERE id = ?",
  hasSession: "SELECT 1 FROM session WHERE id = ?",
  getSessionParent: "SELECT parent_id FROM session WHERE id = ?",
  listSessions: "SELECT id, stamp, data FROM session ORDER BY id LIMIT ?",
  listChildSessions: "SELECT id, stamp, data FROM session WHERE parent_id = ? ORDER BY id LIMIT ?",
  putSession:
    "INSERT INTO session (id, parent_id, data, stamp) VALUES (?, ?, ?, ?) " +
    "ON CONFLICT (id) DO UPDATE SET parent_id = excluded.parent_id, data = excluded.data, " +
    `stamp = ${flipped("session")}`,
  removeSession: "DELETE FROM session WHERE id = ?",
  getMessage: "SELECT id, stamp, data FROM message WHERE session_id = ? AND id = ?",
  hasMessage: "SELECT 1 FROM message WHERE session_id = ? AND id = ?",
  listMessages: "SELECT id, stamp, data FROM message WHERE session_id = ? ORDER BY id",
  listNewestMessages: "SELECT id, stamp, data FROM message WHERE session_id = ? ORDER BY id DESC LIMIT ?",
  putMessage:
    "INSERT INTO message (session_id, id, data, stamp) VALUES (?, ?, ?, ?) " +
    `ON CONFLICT (session_id, id) DO UPDATE SET data = excluded.data, stamp = ${flipped("message")}`,
  removeMessage: "DELETE FROM message WHERE session_id = ? AND id = ?",
  listMessageParts: "SELECT id, stamp, data FROM part WHERE session_id = ? AND message_id = ? ORDER BY id",
  // A session's parts are read in pages of at most `LIMIT ?` rows (see PART_PAGE in
  // sqlite-storage.ts): the first page, the first page from a message on, then the page after
  // the last (message ID, part ID) read.
  listSessionParts:
    "SELECT message_id, id, stamp, data FROM part WHERE session_id = ? ORDER BY message_id, id LIMIT ?",
  listSessionPartsFrom:
    "SELECT message_id, id, stamp, data FROM part WHERE session_id = ? AND message_id >= ? " +
    "ORDER BY message_id, id LIMIT ?",
  listSessionPartsAfter:
    "SELECT message_id, id, stamp, data FROM part WHERE session_id = ? AND (message_id, id) > (?, ?) " +
    "ORDER BY message_id, id LIMIT ?",
  hasPart: "SELECT 1 FROM part WHERE session_id = ? AND message_id = ? AND id = ?",
  putPart:
    "INSERT INTO part (session_id, message_id, id, data, stamp) VALUES (?, ?, ?, ?, ?) " +
    `ON CONFLICT (session_id, message_id, id) DO UPDATE SET data = excluded.data, stamp = ${flipped("part")}`,
  removePart: "DELETE FROM part WHERE session_id = ? AND message_id = ? AND id = ?",
  getValue: "SELECT value FROM kv WHERE key = ?",
  listValues: "SELECT key, value FROM kv WHERE key >= ? ORDER BY key",
  listValuesBelow: "SELECT key, value FROM kv WHERE key >= ? AND key < ? ORDER BY key",
  putValue:
    "INSERT INTO kv (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
  removeValue: "DELETE FROM kv WHERE key = ?",
  // SqliteCoordinator's (see lease-rows.ts and migration 3).
  getLease: "SELECT owner, token, expires_at FROM lease WHERE session_id = ?",
  putLease:
    "INSERT INTO lease (session_id, owner, token, expires_at) VALUES (?, ?, ?, ?) " +
    "ON CONFLICT (session_id) DO UPDATE SET owner = excluded.owner, token = excluded.token, " +
    "expires_at = excluded.expires_at",
  renewLease: "UPDATE lease SET expires_at = ? WHERE session_id = ? AND token = ?",
  removeLease: "DELETE FROM lease WHERE session_id = ? AND token = ?",
  putCoordinatorMessage: "INSERT INTO coordinator_message (origin, payload, created) VALUES (?, ?, ?)",
  trimCoordinatorMessages: "DELETE FROM coordinator_message WHERE created < ?",
  lastCoordinatorMessage: "SELECT max(id) AS id FROM coordinator_message",
  coordinatorMessagesAfter:
    "SELECT id, origin, payload, created FROM coordinator_message WHERE id > ? ORDER BY id LIMIT ?",
} as const

export type Sql = (typeof SQL)[keyof typeof SQL]
