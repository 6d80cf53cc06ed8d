import type pg from "pg"
import { type Kind, kindsOf, putRowsText, putRowsValues } from "./put-rows.js"
import type { RowGroup } from "./row-group.js"

/**
 * The statements of a PostgresStorage as node-postgres runs them. With `prepare` each has a name
 * (its schema's and its own), so a connection parses and plans it once and later runs only bind
 * it, which saves the server's CPU on every put and batch (figures: bench/README.md, "Figures
 * moved from code comments").
 */
export function createStatements(schema: string, prepare: boolean) {
  const sql = queries(schema)
  const puts = new Map<string, string>()
  const nameOf = statementNames(schema, prepare)
  const named = (name: string, text: string, values: unknown[]): pg.QueryConfig => ({
    name: nameOf(name),
    text,
    values,
  })
  return {
    of: (query: Query, values: unknown[]) => named(query, sql[query], values),
    /** A group of rows as one statement (see put-rows.ts); its text is built once per kinds held. */
    puts(group: RowGroup, stamp: number): pg.QueryConfig {
      const kinds = kindsOf(group.columns)
      const key = kinds.map((kind) => KIND_LETTERS[kind]).join("")
      let text = puts.get(key)
      if (text === undefined) {
        text = putRowsText(schema, kinds)
        puts.set(key, text)
      }
      return named(`puts:${key}`, text, putRowsValues(group.columns, kinds, stamp))
    },
  }
}

export type Statements = ReturnType<typeof createStatements>

/**
 * The name of a statement of `schema` when statements are prepared (see createStatements),
 * else undefined: node-postgres then runs it unnamed.
 */
export type StatementName = (statement: string) => string | undefined

export function statementNames(schema: string, prepare: boolean): StatementName {
  return (statement) => (prepare ? `${schema}:${statement}` : undefined)
}

/** Short, for statement names: PostgreSQL cuts a name at 63 bytes. */
const KIND_LETTERS: Record<Kind, string> = {
  sessions: "s",
  messages: "m",
  parts: "p",
  values: "v",
  removedValues: "r",
  sessionsBefore: "S",
  messagesBefore: "M",
}

/** Every statement of PostgresStorage, for tables in `schema`. */
export function queries(schema: string) {
  const t = (table: string) => `"${schema}".${table}`
  // No ORDER BY: readMessages puts the rows in order (see there).
  const listed = (messageFilter: string, partFilter: string) => `
    SELECT 0 AS kind, id AS message_id, id, stamp::text, data FROM ${t("message")} WHERE session_id = $1 ${messageFilter}
    UNION ALL
    SELECT 1 AS kind, message_id, id, stamp::text, data FROM ${t("part")} WHERE session_id = $1 ${partFilter}`
  // Our own update always changes the stamp (its sign), which tells it from another writer's
  // (see the clear_stamp trigger in migrations.ts).
  const flip = (table: string) =>
    `CASE WHEN ${t(table)}.stamp = excluded.stamp THEN -excluded.stamp ELSE excluded.stamp END`
  // Listings of several sessions at once (read-groups.ts): the messages `requests` names (a
  // session and a message ID per row), each row of the answer after its session.
  const listedOf = (requests: string) => `
    WITH r AS (${requests})
    SELECT 0 AS kind, m.session_id, m.id AS message_id, m.id, m.stamp::text, m.data
    FROM ${t("message")} m JOIN r ON m.session_id = r.session_id AND m.id = r.id
    UNION ALL
    SELECT 1 AS kind, p.session_id, p.message_id, p.id, p.stamp::text, p.data
    FROM ${t("part")} p JOIN r ON p.session_id = r.session_id AND p.message_id = r.id`
  // The oldest of the newest $2 messages: the listing starts there.
  const newest = `(SELECT id FROM ${t("message")} WHERE session_id = $1 ORDER BY id DESC LIMIT 1 OFFSET $2 - 1)`
  return {
    getSession: `SELECT id, stamp::text, data FROM ${t("session")} WHERE id = $1`,
    getSessions: `SELECT id, stamp::text, data FROM ${t("session")} WHERE id = ANY($1::text[])`,
    hasSession: `SELECT 1 FROM ${t("session")} WHERE id = $1`,
    listSessions: `SELECT id, stamp::text, data FROM ${t("session")} ORDER BY id LIMIT $1`,
    listChildSessions: `SELECT id, stamp::text, data FROM ${t("session")} WHERE parent_id = $1 ORDER BY id LIMIT $2`,
    ancestors: `
      WITH RECURSIVE chain (id, parent_id) AS (
        SELECT id, parent_id FROM ${t("session")} WHERE id = $1
        UNION
        SELECT s.id, s.parent_id FROM ${t("session")} s JOIN chain c ON s.id = c.parent_id
      ) SELECT id, parent_id FROM chain`,
    putSession: `
      INSERT INTO ${t("session")} (id, parent_id, data, stamp) VALUES ($1, $2, $3, $4)
      ON CONFLICT (id) DO UPDATE SET parent_id = excluded.parent_id, data = excluded.data, stamp = ${flip("session")}`,
    removeSession: `DELETE FROM ${t("session")} WHERE id = $1`,
    hasMessage: `SELECT 1 FROM ${t("message")} WHERE session_id = $1 AND id = $2`,
    getMessage: listed("AND id = $2", "AND message_id = $2"),
    getMessages: listedOf("SELECT * FROM unnest($1::text[], $2::text[]) AS r (session_id, id)"),
    listMessages: listed("", ""),
    listNewestMessageOfSessions: listedOf(`
      SELECT s.session_id, (SELECT id FROM ${t("message")} WHERE session_id = s.session_id ORDER BY id DESC LIMIT 1) AS id
      FROM unnest($1::text[]) AS s (session_id)`),
    listNewestMessages: listed(
      `AND id >= COALESCE(${newest}, '')`,
      `AND message_id >= COALESCE(${newest}, '')`,
    ),
    putMessage: `
      INSERT INTO ${t("message")} (session_id, id, data, stamp) VALUES ($1, $2, $3, $4)
      ON CONFLICT (session_id, id) DO UPDATE SET data = excluded.data, stamp = ${flip("message")}`,
    removeMessage: `DELETE FROM ${t("message")} WHERE session_id = $1 AND id = $2`,
    putPart: `
      INSERT INTO ${t("part")} (session_id, message_id, id, data, stamp) VALUES ($1, $2, $3, $4, $5)
      ON CONFLICT (session_id, message_id, id) DO UPDATE SET data = excluded.data, stamp = ${flip("part")}`,
    removePart: `DELETE FROM ${t("part")} WHERE session_id = $1 AND message_id = $2 AND id = $3`,
    getValue: `SELECT value FROM ${t("value")} WHERE key = $1`,
    listValues: `SELECT key, value FROM ${t("value")} WHERE key >= $1 ORDER BY key`,
    listValuesBelow: `SELECT key, value FROM ${t("value")} WHERE key >= $1 AND key < $2 ORDER BY key`,
    putValue: `
      INSERT INTO ${t("value")} (key, value) VALUES ($1, $2)
      ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
    removeValue: `DELETE FROM ${t("value")} WHERE key = $1`,
  }
}

export type Query = keyof ReturnType<typeof queries>
