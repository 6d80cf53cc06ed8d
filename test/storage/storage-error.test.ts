import { describe, expect, it } from "vitest"
import { NotFoundError, StorageClosedError, StorageError } from "../../src/index.js"
import { postgresFault } from "../../src/storage/postgres/faults.js"
import { createWaits, retrying } from "../../src/storage/retry.js"
import { sqliteFault } from "../../src/storage/sqlite/faults.js"

const coded = (code: string, extra: object = {}) =>
  Object.assign(new Error(`failed with ${code}`), { code }, extra)

describe("StorageError", () => {
  it("is one family: StorageError.isInstance knows StorageClosedError, which keeps its own name", () => {
    const busy = new StorageError(
      { reason: "busy", retryable: true, message: "locked" },
      { cause: coded("SQLITE_BUSY") },
    )
    const closed = new StorageClosedError({ message: "closed" })
    expect(StorageError.isInstance(busy)).toBe(true)
    expect(StorageError.isInstance(closed)).toBe(true)
    expect(StorageClosedError.isInstance(closed)).toBe(true)
    expect(StorageClosedError.isInstance(busy)).toBe(false)
    expect(closed).toBeInstanceOf(StorageClosedError)
    expect(StorageError.isInstance(NotFoundError.of("Session", "ses_1"))).toBe(false)
    expect(busy.toObject()).toEqual({
      name: "StorageError",
      data: { reason: "busy", retryable: true, message: "locked" },
    })
    expect(closed.toObject()).toEqual({
      name: "StorageClosedError",
      data: { reason: "closed", retryable: false, message: "closed" },
    })
    expect(StorageError.Schema.safeParse(closed.toObject()).success).toBe(true)
    expect(StorageClosedError.Schema.safeParse(busy.toObject()).success).toBe(false)
  })

  it("is recognised across copies of the package, by its marker and not its prototype", () => {
    const copy = Object.assign(Object.create(Error.prototype), {
      [Symbol.for("agentloop.named-error")]: true,
      [Symbol.for("agentloop.storage-error")]: true,
      name: "StorageError",
      data: { reason: "io", retryable: false, message: "disk" },
    })
    expect(StorageError.isInstance(copy)).toBe(true)
  })
})

describe("sqliteFault", () => {
  it("reads better-sqlite3's codes and node:sqlite's numbers", () => {
    const cases: [unknown, string | undefined, string | undefined][] = [
      [coded("SQLITE_BUSY"), "busy", "SQLITE_BUSY"],
      [coded("SQLITE_BUSY_SNAPSHOT"), "busy", "SQLITE_BUSY_SNAPSHOT"],
      [coded("SQLITE_LOCKED_SHAREDCACHE"), "busy", "SQLITE_LOCKED_SHAREDCACHE"],
      [coded("SQLITE_FULL"), "full", "SQLITE_FULL"],
      [coded("SQLITE_IOERR_FSYNC"), "io", "SQLITE_IOERR_FSYNC"],
      [coded("SQLITE_CORRUPT"), "corrupt", "SQLITE_CORRUPT"],
      [coded("SQLITE_NOTADB"), "corrupt", "SQLITE_NOTADB"],
      [coded("ERR_SQLITE_ERROR", { errcode: 5 }), "busy", "SQLITE_BUSY"],
      [coded("ERR_SQLITE_ERROR", { errcode: 13 }), "full", "SQLITE_FULL"],
      [coded("ERR_SQLITE_ERROR", { errcode: 10 | (4 << 8) }), "io", "SQLITE_IOERR_FSYNC"],
      [coded("ERR_SQLITE_ERROR", { errcode: 5 | (2 << 8) }), "busy", "SQLITE_BUSY_SNAPSHOT"],
      [coded("ERR_SQLITE_ERROR", { errcode: 10 | (99 << 8) }), "io", "SQLITE_IOERR"],
      [coded("SQLITE_CONSTRAINT_FOREIGNKEY"), undefined, undefined],
      [coded("ERR_SQLITE_ERROR", { errcode: 19 }), undefined, undefined],
      [NotFoundError.of("Session", "ses_1"), undefined, undefined],
      ["SQLITE_BUSY", undefined, undefined],
    ]
    for (const [error, reason, code] of cases) {
      expect(sqliteFault(error)?.reason, String((error as Error).message ?? error)).toBe(reason)
      expect(sqliteFault(error)?.code).toBe(code)
    }
  })

  it("reads Deno's node:sqlite errors, which carry SQLite's message and no errcode", () => {
    // As Deno 2.9 throws them: code ERR_SQLITE_ERROR, SQLite's sentence as the message, nothing else.
    const deno = (message: string) => Object.assign(new Error(message), { code: "ERR_SQLITE_ERROR" })
    const cases: [string, string | undefined, string | undefined][] = [
      ["database is locked", "busy", "SQLITE_BUSY"],
      ["database table is locked", "busy", "SQLITE_LOCKED"],
      ["database schema is locked: main", "busy", "SQLITE_LOCKED"],
      ["database or disk is full", "full", "SQLITE_FULL"],
      ["disk I/O error", "io", "SQLITE_IOERR"],
      ["database disk image is malformed", "corrupt", "SQLITE_CORRUPT"],
      ["malformed database schema (session)", "corrupt", "SQLITE_CORRUPT"],
      ["file is not a database", "corrupt", "SQLITE_NOTADB"],
      ["UNIQUE constraint failed: kv.key", undefined, undefined],
      ["no such table: nope", undefined, undefined],
    ]
    for (const [message, reason, code] of cases) {
      expect(sqliteFault(deno(message))?.reason, message).toBe(reason)
      expect(sqliteFault(deno(message))?.code, message).toBe(code)
    }
    // The words alone, on an error that is not the driver's, are no fault.
    expect(sqliteFault(new Error("database is locked"))).toBeUndefined()
  })
})

describe("postgresFault", () => {
  it("reads SQLSTATEs, socket errors and node-postgres's words for a dropped connection", () => {
    const refused = Object.assign(new AggregateError([coded("ECONNREFUSED"), coded("ECONNREFUSED")]), {})
    const cases: [unknown, string | undefined][] = [
      [coded("57P01"), "connection"],
      [coded("57P02"), "connection"],
      [coded("57P03"), "connection"],
      [coded("08006"), "connection"],
      [coded("ECONNRESET"), "connection"],
      [coded("ECONNREFUSED"), "connection"],
      [refused, "connection"],
      [new Error("Connection terminated unexpectedly"), "connection"],
      [new Error("timeout exceeded when trying to connect"), "connection"],
      [coded("40P01"), "busy"],
      [coded("40001"), "busy"],
      [coded("53100"), "full"],
      [coded("58030"), "io"],
      [coded("XX001"), "corrupt"],
      [coded("23505"), undefined],
      [coded("42P01"), undefined],
      [NotFoundError.of("Session", "ses_1"), undefined],
    ]
    for (const [error, reason] of cases) expect(postgresFault(error)?.reason, String(error)).toBe(reason)
  })
})

describe("retrying", () => {
  const policy = { maxAttempts: 3, maxDelayMs: 1, firstDelayMs: 1 }
  const options = (waits = createWaits()) => ({
    policy,
    classify: sqliteFault,
    waits,
    closed: () => new StorageClosedError({ message: "closed" }),
  })

  it("runs a call again while it meets a transient fault, up to the bound, then fails as retryable", async () => {
    let calls = 0
    const flaky = () => {
      calls++
      if (calls < 3) throw coded("SQLITE_BUSY")
      return "done"
    }
    expect(await retrying(flaky, options())).toBe("done")
    expect(calls).toBe(3)
    calls = 0
    const error = await retrying(() => {
      calls++
      throw coded("SQLITE_BUSY")
    }, options()).catch((caught: unknown) => caught)
    expect(calls).toBe(4)
    expect((error as StorageError).data).toMatchObject({ reason: "busy", retryable: true, attempts: 4 })
  })

  it("retries Deno's busy error and fails at once on its full disk", async () => {
    const deno = (message: string) => Object.assign(new Error(message), { code: "ERR_SQLITE_ERROR" })
    let calls = 0
    const flaky = () => {
      calls++
      if (calls < 3) throw deno("database is locked")
      return "done"
    }
    expect(await retrying(flaky, options())).toBe("done")
    calls = 0
    const full = await retrying(() => {
      calls++
      throw deno("database or disk is full")
    }, options()).catch((caught: unknown) => caught)
    expect(calls).toBe(1)
    expect(StorageError.isInstance(full)).toBe(true)
    expect((full as StorageError).data).toMatchObject({
      reason: "full",
      retryable: false,
      code: "SQLITE_FULL",
    })
  })

  it("fails at once on a fault no retry cures, and passes other errors through untouched", async () => {
    let calls = 0
    const full = await retrying(() => {
      calls++
      throw coded("SQLITE_FULL")
    }, options()).catch((caught: unknown) => caught)
    expect(calls).toBe(1)
    expect((full as StorageError).data).toMatchObject({ reason: "full", retryable: false, attempts: 1 })
    const missing = NotFoundError.of("Session", "ses_1")
    await expect(
      retrying(() => {
        throw missing
      }, options()),
    ).rejects.toBe(missing)
  })

  it("stops waiting when the adapter closes, failing as closed", async () => {
    const waits = createWaits()
    const pending = retrying(
      () => {
        throw coded("SQLITE_BUSY")
      },
      { ...options(waits), policy: { maxAttempts: 5, maxDelayMs: 60_000, firstDelayMs: 60_000 } },
    )
    waits.close()
    await expect(pending).rejects.toSatisfy((error) => StorageClosedError.isInstance(error))
  })
})
