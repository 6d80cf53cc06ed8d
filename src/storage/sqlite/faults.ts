import type { Fault } from "../retry.js"
import type { StorageErrorReason } from "../storage-error.js"

/** SQLite's primary result codes that are faults, by number (node:sqlite gives numbers). */
const PRIMARY: Record<number, string> = {
  5: "SQLITE_BUSY",
  6: "SQLITE_LOCKED",
  10: "SQLITE_IOERR",
  11: "SQLITE_CORRUPT",
  13: "SQLITE_FULL",
  26: "SQLITE_NOTADB",
}

/**
 * The extended result codes of those families, by their number above the primary code (SQLite's
 * `primary | n << 8`, sqlite3.h), so that a node:sqlite number is named as better-sqlite3 names it:
 * 778 is "SQLITE_IOERR_WRITE" on either driver.
 */
const EXTENDED: Record<number, readonly string[]> = {
  5: ["RECOVERY", "SNAPSHOT", "TIMEOUT"],
  6: ["SHAREDCACHE", "VTAB"],
  10: [
    ..."READ SHORT_READ WRITE FSYNC DIR_FSYNC TRUNCATE FSTAT UNLOCK RDLOCK DELETE BLOCKED NOMEM".split(" "),
    ..."ACCESS CHECKRESERVEDLOCK LOCK CLOSE DIR_CLOSE SHMOPEN SHMSIZE SHMLOCK SHMMAP SEEK".split(" "),
    ..."DELETE_NOENT MMAP GETTEMPPATH CONVPATH VNODE AUTH BEGIN_ATOMIC COMMIT_ATOMIC".split(" "),
    ..."ROLLBACK_ATOMIC DATA CORRUPTFS IN_PAGE BADKEY CODEC".split(" "),
  ],
  11: ["VTAB", "SEQUENCE", "INDEX"],
}

/**
 * SQLite's own sentences for those codes (sqlite3_errstr, and what sqlite3_errmsg says for the
 * commonest extended codes), for a driver that passes on the message alone: Deno's node:sqlite
 * gives `code: "ERR_SQLITE_ERROR"` and no `errcode`.
 */
const SENTENCES_OF_CODES: [pattern: RegExp, code: string][] = [
  [/^database is locked/, "SQLITE_BUSY"],
  [/^database (table|schema) is locked/, "SQLITE_LOCKED"],
  [/^disk I\/O error/, "SQLITE_IOERR"],
  [/^(database disk image is malformed|malformed database schema)/, "SQLITE_CORRUPT"],
  [/^database or disk is full/, "SQLITE_FULL"],
  [/^file is not a database/, "SQLITE_NOTADB"],
]

const REASONS: [prefix: string, reason: StorageErrorReason][] = [
  ["SQLITE_BUSY", "busy"],
  ["SQLITE_LOCKED", "busy"],
  ["SQLITE_FULL", "full"],
  ["SQLITE_IOERR", "io"],
  ["SQLITE_CORRUPT", "corrupt"],
  ["SQLITE_NOTADB", "corrupt"],
]

const SENTENCES: Record<StorageErrorReason, string> = {
  busy: "The SQLite database is locked by another connection",
  full: "The SQLite database or the disk holding it is full",
  io: "The SQLite database could not be read or written (the disk or file system failed)",
  corrupt: "The SQLite database file is damaged, or is not a SQLite database",
  connection: "The SQLite database could not be reached",
  closed: "The SQLite database is closed",
}

/**
 * The fault a SQLite driver error stands for, or undefined when it is none (a constraint, a
 * misuse: those are bugs or contract errors and stay as they are). better-sqlite3 names the
 * result code (`code: "SQLITE_BUSY"`, extended codes too: "SQLITE_IOERR_WRITE"); node:sqlite
 * gives its number (`errcode`) on Node and Bun, and only SQLite's message on Deno.
 */
export function sqliteFault(error: unknown): Fault | undefined {
  const code = resultCode(error)
  const reason = code && REASONS.find(([prefix]) => code.startsWith(prefix))?.[1]
  if (!code || !reason) return undefined
  const detail = error instanceof Error ? error.message : String(error)
  return { reason, code, message: `${SENTENCES[reason]}: ${detail} (${code})` }
}

function resultCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined
  const { code, errcode, message } = error as { code?: unknown; errcode?: unknown; message?: unknown }
  if (typeof code === "string" && code.startsWith("SQLITE_")) return code
  if (typeof errcode === "number") return codeName(errcode)
  if (code !== "ERR_SQLITE_ERROR" || typeof message !== "string") return undefined
  return SENTENCES_OF_CODES.find(([pattern]) => pattern.test(message))?.[1]
}

/** A fault's result code number as its name: the extended name where SQLite has one. */
function codeName(errcode: number): string | undefined {
  const primary = PRIMARY[errcode & 0xff]
  const extended = EXTENDED[errcode & 0xff]?.[(errcode >> 8) - 1]
  return primary && extended ? `${primary}_${extended}` : primary
}
