import { z } from "zod"
import { InvalidInputError } from "../error/invalid-input.js"
import { Info as MessageInfo } from "../message/info.js"
import { Part } from "../message/part.js"
import { Info as SessionInfo } from "../session/info.js"
import { CorruptRowError } from "./corrupt-row.js"
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
  let raw: unknown
  try {
    raw = JSON.parse(json)
  } catch {
    throw new CorruptRowError({ kind, id, message: `Stored ${kind} ${id} is not valid JSON` })
  }
  return decodeRow(kind, id, raw)
}

/** Validates a batch before an adapter applies it, so nothing invalid is ever written. */
export function validateWrites(writes: readonly StorageWrite[]): StorageWrite[] {
  return writes.map((write, index) => {
    switch (write.type) {
      case "session.put":
        return { ...write, info: validRow("session", write.info, index) }
      case "message.put":
        return { ...write, info: validRow("message", write.info, index) }
      case "part.put":
        return { ...write, part: validRow("part", write.part, index) }
      case "value.put": {
        const parsed = z.json().safeParse(write.value)
        if (!parsed.success) throw invalid(index, "value", `value for ${write.key} is not JSON`)
        return write
      }
      default:
        return write
    }
  })
}

function validRow<K extends RowKind>(kind: K, row: unknown, index: number): RowOf<K> {
  const parsed = schemas[kind].safeParse(row)
  if (parsed.success) return parsed.data as RowOf<K>
  const rowID = (row as { id?: unknown } | undefined)?.id
  const name = `${kind} ${typeof rowID === "string" ? rowID : "(no id)"}`
  const issues = parsed.error.issues.map((issue) => ({
    path: [`writes[${index}]`, ...issue.path.map(String)].join("."),
    message: issue.message,
  }))
  const detail = issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ")
  throw new InvalidInputError({ message: `Invalid ${name}: ${detail}`, issues })
}

function invalid(index: number, field: string, message: string) {
  return new InvalidInputError({ message, issues: [{ path: `writes[${index}].${field}`, message }] })
}
