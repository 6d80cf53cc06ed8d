import { z } from "zod"
import { isNamedError, NamedError, type NamedErrorClass } from "../error/named-error.js"

const family = Symbol.for("agentloop.storage-error")

/**
 * What went wrong below the storage port: `busy` (another connection held a lock), `full` (no
 * space left), `io` (the disk or file system failed), `connection` (the database server could
 * not be reached or dropped the connection), `corrupt` (the database file or pages are
 * damaged), `closed` (the storage was used after `close()`).
 */
export const StorageErrorReason = z.enum(["busy", "full", "io", "connection", "corrupt", "closed"])
export type StorageErrorReason = z.infer<typeof StorageErrorReason>

/**
 * The data of a `StorageError`: why it failed (`reason`), whether a later call may succeed
 * (`retryable`), and the adapter's message.
 */
export const StorageErrorData = z.object({
  reason: StorageErrorReason,
  /**
   * Whether the same call may succeed later without anyone fixing anything: true for `busy` and
   * `connection`, which the adapter already retried up to its bound.
   */
  retryable: z.boolean(),
  /**
   * The driver's code: "SQLITE_BUSY", "SQLITE_IOERR_WRITE", a SQLSTATE ("57P01"), a socket error
   * ("ECONNREFUSED"), or "CONNECTION_LOST" when node-postgres only said the connection ended.
   */
  code: z.string().optional(),
  /** How many times the adapter ran the call before giving up (1 when it was not retried). */
  attempts: z.number().int().positive().optional(),
  message: z.string(),
})
export type StorageErrorData = z.infer<typeof StorageErrorData>

/** The reasons a later attempt can cure by itself. */
export function isTransient(reason: StorageErrorReason): boolean {
  return reason === "busy" || reason === "connection"
}

/**
 * A fault of the database under a Storage adapter, as opposed to a broken contract (those are
 * NotFoundError, InvalidInputError and CorruptRowError). The driver's own error is the `cause`.
 * `StorageError.isInstance` recognises the whole family, StorageClosedError included.
 */
export class StorageError<Name extends string = "StorageError" | "StorageClosedError"> extends NamedError<
  Name,
  StorageErrorData
> {
  readonly [family] = true
  static override readonly errorName: string = "StorageError"
  static readonly Schema: z.ZodType<{ name: string; data: StorageErrorData }> = z.object({
    name: z.enum(["StorageError", "StorageClosedError"]),
    data: StorageErrorData,
  })

  static override isInstance<T extends NamedErrorClass>(this: T, value: unknown): value is InstanceType<T> {
    if (!isNamedError(value)) return false
    // StorageError answers for the family; a subclass (StorageClosedError) for its own name only.
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class isInstance was called on
    if (this.errorName !== "StorageError") return value.name === this.errorName
    return (value as { [family]?: unknown })[family] === true
  }
}
