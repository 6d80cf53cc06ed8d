import { byteaArray, textArray } from "./binary-array.js"

/**
 * What a group of rows holds, by kind, each kind as columns of equal length: rows to upsert,
 * values to remove, and the sessions and messages that must exist before the statement (rows an
 * earlier write of the group needs, put again later in it: see planBatch).
 */
export const COLUMNS = {
  sessions: ["text", "text"], // id, data
  messages: ["text", "text", "text"], // session_id, id, data
  parts: ["text", "text", "text", "text"], // session_id, message_id, id, data
  values: ["bytea", "text"], // key, value
  removedValues: ["bytea"], // key
  sessionsBefore: ["text"], // id
  messagesBefore: ["text", "text"], // session_id, id
} as const

export type Kind = keyof typeof COLUMNS
/** A group's rows, column by column, as COLUMNS describes them. */
export type Columns = {
  sessions: [id: string[], data: string[]]
  messages: [sessionID: string[], id: string[], data: string[]]
  parts: [sessionID: string[], messageID: string[], id: string[], data: string[]]
  values: [key: Buffer[], value: string[]]
  removedValues: [key: Buffer[]]
  sessionsBefore: [id: string[]]
  messagesBefore: [sessionID: string[], id: string[]]
}

const KINDS = Object.keys(COLUMNS) as Kind[]
const STAMPED: ReadonlySet<Kind> = new Set(["sessions", "messages", "parts"])
const CHECKS: ReadonlySet<Kind> = new Set(["sessionsBefore", "messagesBefore"])

/** The kinds a group holds rows of: its statement's text depends on these alone. */
export function kindsOf(columns: Columns): Kind[] {
  return KINDS.filter((kind) => columns[kind][0].length > 0)
}

/** Whether a statement of these kinds answers `ok` (false: a row that had to exist did not). */
export function isChecked(kinds: readonly Kind[]): boolean {
  return kinds.some((kind) => CHECKS.has(kind))
}

/** The parameters of putRowsText(kinds): the stamp when a kind needs it, then each column as an array. */
export function putRowsValues(columns: Columns, kinds: readonly Kind[], stamp: number): unknown[] {
  const arrays = kinds.flatMap((kind) =>
    (columns[kind] as readonly (string[] | Buffer[])[]).map((column, index) =>
      COLUMNS[kind][index] === "bytea" ? byteaArray(column as Buffer[]) : textArray(column as string[]),
    ),
  )
  return kinds.some((kind) => STAMPED.has(kind)) ? [stamp, ...arrays] : arrays
}

/**
 * One statement for a group: an upsert (or delete) per kind of row, each reading its rows from
 * arrays (`unnest`), as data-modifying CTEs. With rows that had to exist before, the statement
 * first counts them (every CTE sees the table as it was before the statement), writes nothing
 * unless all are there, and answers `ok`. `$1` is the stamp when a kind needs it; each kind's
 * arrays follow, in `kinds` order.
 */
export function putRowsText(schema: string, kinds: readonly Kind[]): string {
  const t = (table: string) => `"${schema}".${table}`
  // Our own update always changes the stamp (its sign): see the clear_stamp trigger.
  const flip = (table: string) =>
    `CASE WHEN ${t(table)}.stamp = excluded.stamp THEN -excluded.stamp ELSE excluded.stamp END`
  let next = kinds.some((kind) => STAMPED.has(kind)) ? 2 : 1
  const param = (kind: Kind, index: number) => `$${next + index}::${COLUMNS[kind][index]}[]`
  const checked = isChecked(kinds)
  const when = checked ? "WHERE (SELECT ok FROM pre)" : ""
  const statements: Record<Kind, (p: (index: number) => string) => string> = {
    sessions: (p) => `INSERT INTO ${t("session")} (id, parent_id, data, stamp)
      SELECT id, NULL, data, $1::bigint FROM unnest(${p(0)}, ${p(1)}) AS r (id, data) ${when}
      ON CONFLICT (id) DO UPDATE SET parent_id = NULL, data = excluded.data, stamp = ${flip("session")}`,
    messages: (p) => `INSERT INTO ${t("message")} (session_id, id, data, stamp)
      SELECT session_id, id, data, $1::bigint FROM unnest(${p(0)}, ${p(1)}, ${p(2)}) AS r (session_id, id, data) ${when}
      ON CONFLICT (session_id, id) DO UPDATE SET data = excluded.data, stamp = ${flip("message")}`,
    parts: (p) => `INSERT INTO ${t("part")} (session_id, message_id, id, data, stamp)
      SELECT session_id, message_id, id, data, $1::bigint
      FROM unnest(${p(0)}, ${p(1)}, ${p(2)}, ${p(3)}) AS r (session_id, message_id, id, data) ${when}
      ON CONFLICT (session_id, message_id, id) DO UPDATE SET data = excluded.data, stamp = ${flip("part")}`,
    values: (p) => `INSERT INTO ${t("value")} (key, value)
      SELECT key, value FROM unnest(${p(0)}, ${p(1)}) AS r (key, value) ${when}
      ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
    removedValues: (p) =>
      `DELETE FROM ${t("value")} WHERE key = ANY(${p(0)}) ${checked ? "AND (SELECT ok FROM pre)" : ""}`,
    sessionsBefore: (p) =>
      `(SELECT count(*) FROM ${t("session")} WHERE id = ANY(${p(0)})) = cardinality(${p(0)})`,
    messagesBefore: (p) => `(SELECT count(*) FROM ${t("message")} m
      JOIN unnest(${p(0)}, ${p(1)}) AS r (session_id, id) ON m.session_id = r.session_id AND m.id = r.id)
      = cardinality(${p(0)})`,
  }
  const texts = new Map<Kind, string>()
  for (const kind of kinds) {
    texts.set(
      kind,
      statements[kind]((index) => param(kind, index)),
    )
    next += COLUMNS[kind].length
  }
  const writes = kinds.filter((kind) => !CHECKS.has(kind)).map((kind) => texts.get(kind)!)
  const ctes = writes.map((text, index) => `w${index} AS (${text})`)
  if (checked) {
    const conditions = kinds.filter((kind) => CHECKS.has(kind)).map((kind) => texts.get(kind)!)
    // Every data-modifying CTE runs, whether or not the main statement reads it.
    return `WITH pre AS (SELECT ${conditions.join(" AND ")} AS ok), ${ctes.join(", ")} SELECT ok FROM pre`
  }
  const main = writes.pop()!
  return ctes.length === 1 ? main : `WITH ${ctes.slice(0, -1).join(", ")} ${main}`
}
