import type { Fault } from "../retry.js"
import type { StorageErrorReason } from "../storage-error.js"

/** SQLSTATEs that are faults of the server rather than of the statement. */
const STATES: Record<string, StorageErrorReason> = {
  "57P01": "connection", // admin_shutdown: the server is stopping, or pg_terminate_backend
  "57P02": "connection", // crash_shutdown: another backend crashed, the server restarts
  "57P03": "connection", // cannot_connect_now: the server is starting up or shutting down
  "57P05": "connection", // idle_session_timeout
  "25P03": "connection", // idle_in_transaction_session_timeout
  "53300": "connection", // too_many_connections
  "08000": "connection",
  "08001": "connection",
  "08003": "connection",
  "08004": "connection",
  "08006": "connection",
  "08007": "connection", // transaction_resolution_unknown: see transaction.ts
  "40001": "busy", // serialization_failure: the transaction rolled back, running it again is safe
  "40P01": "busy", // deadlock_detected: likewise
  "55P03": "busy", // lock_not_available
  "53100": "full", // disk_full
  "58030": "io", // io_error
  XX001: "corrupt", // data_corrupted
  XX002: "corrupt", // index_corrupted
}

/** Socket errors of a connection that failed or dropped; DNS answers that may come later too. */
const SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ENETUNREACH",
  "ENETDOWN",
  "EAI_AGAIN",
])

/**
 * What node-postgres and pg-pool say when the socket went away or a connection did not come;
 * such errors carry no code, and the StorageError gets "CONNECTION_LOST".
 */
const CONNECTION_MESSAGES =
  /Connection terminated|Connection ended|not queryable|timeout exceeded when trying to connect|connection timeout/i

const SENTENCES: Record<StorageErrorReason, string> = {
  connection: "Lost the connection to the PostgreSQL server, or could not connect",
  busy: "A PostgreSQL transaction met another one's locks",
  full: "The PostgreSQL server is out of disk space",
  io: "The PostgreSQL server could not read or write its files",
  corrupt: "The PostgreSQL server found damaged data",
  closed: "The PostgreSQL storage is closed",
}

/**
 * The fault a node-postgres error stands for, or undefined when it is none: a refused
 * statement (a constraint, a permission) is a bug or a contract error and stays as it is.
 */
export function postgresFault(error: unknown): Fault | undefined {
  const found = faultCode(error)
  if (!found) return undefined
  const detail = error instanceof Error ? error.message : String(error)
  return {
    reason: found.reason,
    code: found.code,
    message: `${SENTENCES[found.reason]}: ${detail} (${found.code})`,
  }
}

function faultCode(error: unknown): { reason: StorageErrorReason; code: string } | undefined {
  if (typeof error !== "object" || error === null) return undefined
  const code = (error as { code?: unknown }).code
  if (typeof code === "string" && Object.hasOwn(STATES, code)) return { reason: STATES[code]!, code }
  if (typeof code === "string" && SOCKET_CODES.has(code)) return { reason: "connection", code }
  // Node tries every address of "localhost" and reports each failure in one AggregateError.
  const errors = (error as { errors?: unknown }).errors
  if (Array.isArray(errors))
    for (const inner of errors) {
      const found = faultCode(inner)
      if (found) return found
    }
  const message = (error as { message?: unknown }).message
  if (typeof message === "string" && CONNECTION_MESSAGES.test(message))
    return { reason: "connection", code: "CONNECTION_LOST" }
  return undefined
}
