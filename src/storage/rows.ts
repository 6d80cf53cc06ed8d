import { createHash } from "node:crypto"
import { z } from "zod"
import { InvalidInputError, issuesOf } from "../error/invalid-input.js"
import { quote, truncate } from "../error/quote.js"
import { MessageInfo } from "../message/info.js"
import { Part } from "../message/part.js"
import { SessionInfo } from "../schema/session.js"
import { CorruptRowError } from "./corrupt-row.js"
import { encodeJson } from "./json-encoding.js"
import type { StorageWrite } from "./port.js"

type RowKind = "session" | "message" | "part"
const schemas = { session: SessionInfo, message: MessageInfo, part: Part } as const
type RowOf<K extends RowKind> = z.output<(typeof schemas)[K]>

/** Parses a stored row, naming the row when it does not match its schema. */
export function decodeRow<K extends RowKind>(kind: K, id: string, raw: unknown): RowOf<K> {
  const parsed = schemas[kind].safeParse(raw)
  if (parsed.success) return parsed.data as RowOf<K>
  const detail = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")
  throw new CorruptRowError({
    kind,
    id,
    message: `Stored ${kind} ${id} does not match its schema: ${detail}`,
  })
}

/** Parses a stored JSON text, naming the row when it is not valid JSON or does not match. */
export function decodeJsonRow<K extends RowKind>(kind: K, id: string, json: string): RowOf<K> {
  return readJsonRow(kind, id, json, false)
}

/**
 * Parses a stored JSON text. A `trusted` row (one this package's write path validated and
 * stamped, see rowStamp) is returned as parsed, without the schema check; any other row is
 * decoded against its schema as decodeRow does. Invalid JSON is a CorruptRowError either way.
 */
export function readJsonRow<K extends RowKind>(
  kind: K,
  id: string,
  json: string,
  trusted: boolean,
): RowOf<K> {
  let raw: unknown
  try {
    raw = JSON.parse(json)
  } catch {
    throw new CorruptRowError({ kind, id, message: `Stored ${kind} ${id} is not valid JSON` })
  }
  return trusted ? (raw as RowOf<K>) : decodeRow(kind, id, raw)
}

/** A stored value of the key-value area, from its JSON text; CorruptRowError when it is not JSON. */
export function decodeValue(key: string, json: string): unknown {
  try {
    return JSON.parse(json)
  } catch {
    throw new CorruptRowError({ kind: "value", id: key, message: `Stored value ${key} is not valid JSON` })
  }
}

/**
 * The version of the stored row format. Bump it when a row written by the previous code could
 * fail the new schemas, or decode to something else, in a way their JSON Schema does not show
 * (a refinement such as the ID pattern, a transform): rowStamp folds it in with the schemas.
 */
export const ROW_FORMAT = 1

/**
 * The stamp an adapter stores beside each session, message and part row it writes, so that it
 * can tell its own rows from rows someone else wrote. Rows reach storage only through
 * validateWrites, so a row carrying the current stamp already passed these very schemas (or was
 * built by the runtime from values that did, see CheckedWrite) and reading it back needs
 * `JSON.parse` only; a row without it (written by another program, by
 * hand, or before stamps existed) or with another stamp (written by a version whose schemas
 * differ) is validated on read and fails with CorruptRowError when it does not match.
 *
 * The stamp identifies the row format: 48 bits of a SHA-256 of ROW_FORMAT and the JSON Schema
 * of the three row schemas, so any change to a schema's shape changes it without anyone having
 * to remember a bump. It is never 0, so that it differs from its negation (see the SQLite
 * adapter). Computing it costs a few milliseconds, so the adapters use ROW_STAMP
 * (src/storage/row-stamp.ts), which scripts/generate-row-stamp.ts writes from it and a test
 * keeps equal to it.
 */
export function rowStamp(): number {
  const shapes = Object.values(schemas).map((schema) => z.toJSONSchema(schema, { unrepresentable: "any" }))
  const digest = createHash("sha256")
    .update(JSON.stringify({ format: ROW_FORMAT, shapes }))
    .digest()
  return digest.readUIntBE(0, 6) || 1
}

/** The fields of each write besides its row, which is checked against the row's own schema. */
const fieldsOf = {
  "session.put": z.object({ info: z.unknown() }),
  "session.remove": z.object({ sessionID: z.string() }),
  "message.put": z.object({ info: z.unknown() }),
  "message.remove": z.object({ sessionID: z.string(), messageID: z.string() }),
  "part.put": z.object({ part: z.unknown() }),
  "part.remove": z.object({ sessionID: z.string(), messageID: z.string(), partID: z.string() }),
  "value.put": z.object({ key: z.string(), value: z.unknown() }),
  "value.remove": z.object({ key: z.string() }),
} satisfies Record<StorageWrite["type"], z.ZodType>
type WriteType = keyof typeof fieldsOf

/**
 * Each write type's field names, and those of them that must be strings: checked by hand on
 * every write (read once from the schemas above), zod only names what is wrong.
 */
const namesOf: Record<string, { names: readonly string[]; strings: readonly string[] }> = Object.fromEntries(
  Object.entries(fieldsOf).map(([type, schema]) => {
    const shape: Record<string, z.ZodType> = schema.shape
    const names = Object.keys(shape)
    return [type, { names, strings: names.filter((name) => shape[name] instanceof z.ZodString) }]
  }),
)

const JsonValue = z.json()

/** A validated write, with the JSON text of the row or value it puts: what the adapter stores. */
export type EncodedWrite = { write: StorageWrite; json: string | undefined }

/**
 * Validates a batch before an adapter applies it, so nothing invalid is ever written: a batch
 * that is not an array, a write of unknown type, a key or ID that is not a string, a row that
 * fails its schema, a value that is not JSON, or a row or value JSON cannot encode (a BigInt, a
 * cycle) fails with InvalidInputError naming the write.
 */
export function validateWrites(writes: unknown): StorageWrite[] {
  return encodeWrites(writes).map((encoded) => encoded.write)
}

/**
 * Batches at least this long parse their rows with zod's compiled parsers. zod compiles a schema
 * at its first compiled parse, which costs about as much as 750 plain ones: worth it for a
 * fork's or an import's thousands of rows, not for the few rows a step still parses (most come
 * checked, see CheckedWrite), and a process's first turn would pay for it.
 */
const COMPILED_PARSE_FROM = 64

/**
 * validateWrites, keeping each row's JSON text, which the check encodes anyway. A write whose
 * `checked` flag is set (the runtime built its row from checked values, see CheckedWrite) skips
 * its row's schema parse, and only that: its fields are checked and its row encoded as any other.
 */
export function encodeWrites(writes: unknown, checked?: readonly boolean[]): EncodedWrite[] {
  if (!Array.isArray(writes)) throw invalid("writes", `expected an array of writes, got ${quote(writes)}`)
  const jitless = writes.length < COMPILED_PARSE_FROM
  return writes.map((write, index) =>
    validWrite(write, index, { jitless, trusted: checked?.[index] === true }),
  )
}

/** How a write's row is checked: zod's compiled parsers or not, or no parse for a checked row. */
type RowCheck = { jitless: boolean; trusted: boolean }

function validWrite(write: unknown, index: number, check: RowCheck): EncodedWrite {
  const at = `writes[${index}]`
  if (typeof write !== "object" || write === null)
    throw invalid(at, `expected a write ({ type, ... }), got ${quote(write)}`)
  const type: unknown = (write as { type?: unknown }).type
  if (typeof type !== "string" || !Object.hasOwn(fieldsOf, type)) {
    const known = Object.keys(fieldsOf).join(", ")
    throw invalid(`${at}.type`, `expected one of ${known}, got ${quote(type)}`)
  }
  const checked = withValidRow(fieldsOfWrite(type as WriteType, write, at), at, check)
  // What the adapter stores: the row as its schema parsed it.
  const row = rowOf(checked)
  return { write: checked, json: row ? encodeJson(row.value, `${at}.${row.field}`) : undefined }
}

/** The write's own fields, without any others it carries; InvalidInputError when one is not as its type says. */
function fieldsOfWrite(type: WriteType, write: object, at: string): StorageWrite {
  const given = write as Record<string, unknown>
  const { names, strings } = namesOf[type]!
  if (strings.every((name) => typeof given[name] === "string")) {
    const picked: Record<string, unknown> = { type }
    for (const name of names) if (name in given) picked[name] = given[name]
    return picked as StorageWrite
  }
  const fields = fieldsOf[type].safeParse(write)
  if (!fields.success) throw fromIssues(`write ${type}`, at, fields.error)
  return { type, ...fields.data } as StorageWrite
}

/** The write with its row as the row's schema parsed it. */
function withValidRow(checked: StorageWrite, at: string, check: RowCheck): StorageWrite {
  switch (checked.type) {
    case "session.put":
      return { ...checked, info: validRow("session", checked.info, at, check) }
    case "message.put":
      return { ...checked, info: validRow("message", checked.info, at, check) }
    case "part.put":
      return { ...checked, part: validRow("part", checked.part, at, check) }
    case "value.put":
      if (!JsonValue.safeParse(checked.value).success)
        throw invalid(`${at}.value`, `the value for key ${quote(checked.key)} is not JSON`)
      return checked
    default:
      return checked
  }
}

/** The row or value a write stores, as JSON. */
function rowOf(write: StorageWrite): { field: string; value: unknown } | undefined {
  if (write.type === "session.put" || write.type === "message.put")
    return { field: "info", value: write.info }
  if (write.type === "part.put") return { field: "part", value: write.part }
  if (write.type === "value.put") return { field: "value", value: write.value }
  return undefined
}

/** An ID or key argument of a read, checked: a SQLite driver would throw a RangeError at it. */
export function requireString(field: string, value: unknown): string {
  if (typeof value === "string") return value
  throw invalid(field, `expected a string, got ${quote(value)}`)
}

/**
 * Refuses a session put (the `index`th write) that would make the session its own ancestor,
 * so that every walk along parent links ends. `parentOf` reads a session's stored parent,
 * including what earlier writes of the same batch changed.
 */
export function refuseParentCycle(
  info: SessionInfo,
  index: number,
  parentOf: (sessionID: string) => string | undefined,
): void {
  const seen = new Set<string>()
  for (let current = info.parentID; current !== undefined; current = parentOf(current)) {
    if (current === info.id) {
      const links = seen.size + 1
      throw invalid(
        `writes[${index}].info.parentID`,
        `session ${info.id} would be its own ancestor (its parent chain returns to it after ${links} link(s))`,
      )
    }
    // A loop already stored (by an older version) that does not pass through this session.
    if (seen.has(current)) return
    seen.add(current)
  }
}

function validRow<K extends RowKind>(kind: K, row: unknown, at: string, check: RowCheck): RowOf<K> {
  if (check.trusted) return row as RowOf<K>
  const parsed = schemas[kind].safeParse(row, { jitless: check.jitless })
  if (parsed.success) return parsed.data as RowOf<K>
  const rowID = (row as { id?: unknown } | undefined)?.id
  throw fromIssues(`${kind} ${typeof rowID === "string" ? truncate(rowID) : "(no id)"}`, at, parsed.error)
}

/** An InvalidInputError about `what`, its issues' paths under `at` (the write). */
function fromIssues(what: string, at: string, error: z.ZodError): InvalidInputError {
  const issues = issuesOf(error).map((issue) => ({
    path: issue.path === "(root)" ? at : `${at}.${issue.path}`,
    message: issue.message,
  }))
  const detail = issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ")
  return new InvalidInputError({ message: `Invalid ${what}: ${detail}`, issues }, { cause: error })
}

function invalid(path: string, message: string): InvalidInputError {
  return new InvalidInputError({ message: `Invalid ${path}: ${message}`, issues: [{ path, message }] })
}
