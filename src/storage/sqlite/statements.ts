/**
 * Every statement SqliteStorage runs, in one place so that tests can check their query plans.
 * Listings read keys in index order (see migrations.ts), so no query needs a sort step.
 */
export const SQL = {
  begin: "BEGIN",
  beginWrite: "BEGIN IMMEDIATE",
  commit: "COMMIT",
  getSession: "SELECT data FROM session WHERE id = ?",
  hasSession: "SELECT 1 FROM session WHERE id = ?",
  getSessionParent: "SELECT parent_id FROM session WHERE id = ?",
  listSessions: "SELECT id, data FROM session ORDER BY id LIMIT ?",
  listChildSessions: "SELECT id, data FROM session WHERE parent_id = ? ORDER BY id LIMIT ?",
  putSession:
    "INSERT INTO session (id, parent_id, data) VALUES (?, ?, ?) " +
    "ON CONFLICT (id) DO UPDATE SET parent_id = excluded.parent_id, data = excluded.data",
  removeSession: "DELETE FROM session WHERE id = ?",
  getMessage: "SELECT id, data FROM message WHERE session_id = ? AND id = ?",
  hasMessage: "SELECT 1 FROM message WHERE session_id = ? AND id = ?",
  listMessages: "SELECT id, data FROM message WHERE session_id = ? ORDER BY id",
  listNewestMessages: "SELECT id, data FROM message WHERE session_id = ? ORDER BY id DESC LIMIT ?",
  putMessage:
    "INSERT INTO message (session_id, id, data) VALUES (?, ?, ?) " +
    "ON CONFLICT (session_id, id) DO UPDATE SET data = excluded.data",
  removeMessage: "DELETE FROM message WHERE session_id = ? AND id = ?",
  listMessageParts: "SELECT id, data FROM part WHERE session_id = ? AND message_id = ? ORDER BY id",
  listSessionParts: "SELECT message_id, id, data FROM part WHERE session_id = ? ORDER BY message_id, id",
  listSessionPartsFrom:
    "SELECT message_id, id, data FROM part WHERE session_id = ? AND message_id >= ? ORDER BY message_id, id",
  hasPart: "SELECT 1 FROM part WHERE session_id = ? AND message_id = ? AND id = ?",
  putPart:
    "INSERT INTO part (session_id, message_id, id, data) VALUES (?, ?, ?, ?) " +
    "ON CONFLICT (session_id, message_id, id) DO UPDATE SET data = excluded.data",
  removePart: "DELETE FROM part WHERE session_id = ? AND message_id = ? AND id = ?",
  getValue: "SELECT value FROM kv WHERE key = ?",
  listValues: "SELECT key, value FROM kv WHERE key >= ? ORDER BY key",
  listValuesBelow: "SELECT key, value FROM kv WHERE key >= ? AND key < ? ORDER BY key",
  putValue:
    "INSERT INTO kv (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
  removeValue: "DELETE FROM kv WHERE key = ?",
} as const

export type Sql = (typeof SQL)[keyof typeof SQL]
