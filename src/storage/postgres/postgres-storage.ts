import pg from "pg"
import { InvalidInputError } from "../../error/invalid-input.js"
import { NotFoundError } from "../../error/not-found.js"
import type { WithParts } from "../../message/info.js"
import type { SessionInfo } from "../../schema/session.js"
import { type CheckedWrite, writeChecked } from "../checked-write.js"
import type { MessageQuery, SessionQuery, Storage, StorageWrite } from "../port.js"
import { createWaits, type Retrying, retrying, retryPolicy } from "../retry.js"
import { ROW_STAMP } from "../row-stamp.js"
import { decodeValue, encodeWrites, readJsonRow, requireString } from "../rows.js"
import { StorageClosedError } from "../storage-closed-error.js"
import { isTransient } from "../storage-error.js"
import { PostgresCoordinator } from "./coordinator.js"
import { postgresFault } from "./faults.js"
import { decodeKey, encodeKey, prefixEnd } from "./keys.js"
import { migrate } from "./migrations.js"
import { DEFAULT_RETRY, type PostgresStorageOptions } from "./options.js"
import { createPutGroups } from "./put-groups.js"
import { createStatements, type Query, type Statements, statementNames } from "./queries.js"
import { createReadGroups, type Row } from "./read-groups.js"
import { readListings, readMessages } from "./read-messages.js"
import { CHUNK_WRITES, chunkedSteps, isReplayable, oneByOne, planBatch, type Step } from "./row-group.js"
import { checkout, guardConnection, outcome, runTransaction } from "./transaction.js"
import { applyStep, explainFailure, isForeignKeyViolation, type Writer } from "./writes.js"

/**
 * Durable storage in PostgreSQL, for many processes on one database. Pass a `pg.Pool` (yours:
 * `close()` leaves it open) or its config (`close()` ends the pool it made). The schema is
 * created or migrated by the first call; a schema a newer agentloop migrated fails every call
 * with SchemaVersionError. Rows are JSON text: every string round-trips, `\u0000` and lone
 * surrogates included. Its `coordinator` (see docs/scaling.md) makes runtimes of several
 * processes share the sessions safely.
 *
 * A call that loses its connection (a restarted server, a terminated backend) is run again on
 * another, within the `retry` bound; then it fails with a StorageError of reason "connection".
 * A write runs again only when it did not land: see `write`.
 */
export class PostgresStorage implements Storage {
  readonly coordinator: PostgresCoordinator
  readonly #pool: pg.Pool
  readonly #ownsPool: boolean
  readonly #statements: Statements
  readonly #writer: Writer
  readonly #schema: string
  readonly #retrying: Retrying
  readonly #waits = createWaits()
  // Replayable batches that come while one is on its way go together (see put-groups.ts).
  readonly #puts = createPutGroups((group) =>
    this.#retry(async () => {
      await this.#open()
      await applyStep(this.#pool, this.#writer, { group })
    }),
  )
  // So do the reads each step makes (see read-groups.ts).
  readonly #reads = createReadGroups({
    rows: (query, args) => this.#rows<Row>(query, args),
    listing: (query, args) => this.#listing(query, args),
    listings: (query, args, keyOf) => this.#listings(query, args, keyOf),
    requireSession: (sessionID) => this.#requireSession(sessionID),
  })
  #ready: Promise<void> | undefined
  #closing: Promise<void> | undefined
  #closed = false

  constructor(poolOrConfig: pg.Pool | pg.PoolConfig, options: PostgresStorageOptions = {}) {
    const schema = options.schema ?? "agentloop"
    if (!/^[a-z_][a-z0-9_]{0,40}$/.test(schema)) {
      const message = "use 1-41 lower-case letters, digits or _, not starting with a digit"
      throw new InvalidInputError({
        message: `Invalid PostgresStorage options: schema: ${message}`,
        issues: [{ path: "schema", message }],
      })
    }
    this.#schema = schema
    this.#retrying = {
      policy: retryPolicy("PostgresStorage", options.retry, DEFAULT_RETRY),
      classify: postgresFault,
      waits: this.#waits,
      closed: closedError,
    }
    this.#ownsPool = !(poolOrConfig instanceof pg.Pool)
    this.#pool = poolOrConfig instanceof pg.Pool ? poolOrConfig : new pg.Pool(poolOrConfig)
    // A client that errors (the server restarted, its backend was terminated) must not crash
    // the process, idle or not: each query that fails says so itself.
    if (this.#ownsPool) {
      this.#pool.on("error", () => undefined)
      this.#pool.on("connect", guardConnection)
    }
    const prepare = options.prepare ?? true
    this.#statements = createStatements(schema, prepare)
    this.#writer = { statements: this.#statements, stamp: ROW_STAMP }
    const config = (this.#pool as unknown as { options: pg.ClientConfig }).options
    this.coordinator = new PostgresCoordinator({
      pool: this.#pool,
      config,
      schema,
      ready: () => this.#open(),
      name: statementNames(schema, prepare),
    })
  }

  async getSession(sessionID: string): Promise<SessionInfo | undefined> {
    const row = await this.#reads.session.read(requireString("sessionID", sessionID))
    return row ? this.#decode("session", row) : undefined
  }

  async listSessions(query: SessionQuery = {}): Promise<SessionInfo[]> {
    const limit = rowLimit(query.limit)
    const rows =
      query.parentID === undefined
        ? await this.#rows<Row>("listSessions", [limit])
        : await this.#rows<Row>("listChildSessions", [requireString("parentID", query.parentID), limit])
    return rows.map((row) => this.#decode("session", row))
  }

  async getMessage(sessionID: string, messageID: string): Promise<WithParts | undefined> {
    requireString("sessionID", sessionID)
    requireString("messageID", messageID)
    return this.#reads.message.read({ sessionID, messageID })
  }

  async listMessages(sessionID: string, query: MessageQuery = {}): Promise<WithParts[]> {
    requireString("sessionID", sessionID)
    // One statement, so one snapshot: a message is never read without parts a writer added with it.
    const limit = rowLimit(query.limit)
    // The newest message alone is what every step reads (the floor of its next ID).
    if (limit === 1) return this.#reads.newest.read(sessionID)
    const messages =
      limit === null
        ? await this.#listing("listMessages", [sessionID])
        : limit === 0
          ? []
          : await this.#listing("listNewestMessages", [sessionID, limit])
    if (messages.length === 0) await this.#requireSession(sessionID)
    return messages
  }

  async getValue(key: string): Promise<unknown> {
    const [row] = await this.#rows<{ value: string }>("getValue", [encodeKey(requireString("key", key))])
    return row ? decodeValue(key, row.value) : undefined
  }

  async listValues(prefix: string): Promise<{ key: string; value: unknown }[]> {
    const start = encodeKey(requireString("prefix", prefix))
    const end = prefixEnd(start)
    const rows = end
      ? await this.#rows<{ key: Buffer; value: string }>("listValuesBelow", [start, end])
      : await this.#rows<{ key: Buffer; value: string }>("listValues", [start])
    return rows.map((row) => {
      const key = decodeKey(row.key)
      return { key, value: decodeValue(key, row.value) }
    })
  }

  /**
   * A write that loses its connection runs again, exactly once in effect. Up to 256 puts (the
   * writes of a live turn), none on the same row as another, are one statement, autocommit, each
   * kind of row an upsert of many rows (docs/storage.md): applying it again changes nothing. Any
   * other batch is a transaction: one whose connection dropped before COMMIT went out did not
   * land (the server rolls it back); when it dropped while COMMIT was on its way, the server is
   * asked whether that transaction committed (`txid_status`) before anything runs again. So a
   * remove never runs twice and fails for its own success. Put batches of several sessions
   * written while such a statement is on its way go together in the next (docs/storage.md).
   */
  async write(writes: readonly StorageWrite[]): Promise<void> {
    return this.#write(writes)
  }

  /** @internal `write` for the runtime's own batches, whose checked rows skip their schema parse. */
  async [writeChecked](writes: readonly CheckedWrite[]): Promise<void> {
    const flags = writes.map((entry) => entry.checked)
    return this.#write(
      writes.map((entry) => entry.write),
      flags,
    )
  }

  /** `write`; `checked` says which rows are already checked (see CheckedWrite). */
  async #write(writes: readonly StorageWrite[], checked?: readonly boolean[]): Promise<void> {
    // A long batch is validated a chunk at a time, while the chunk before runs (chunkedSteps);
    // its rows are all parsed (the runtime's own batches are short).
    const long = Array.isArray(writes) && writes.length > CHUNK_WRITES
    const valid = long ? undefined : encodeWrites(writes, checked)
    const steps = valid && planBatch(valid)
    let inDoubt: string | undefined
    const transaction = (batch: Iterable<Step>): Promise<void> =>
      runTransaction(this.#pool, batch, {
        apply: (client, step) => applyStep(client, this.#writer, step),
        overlaps: (step) => "group" in step,
        // A row of a group whose session or message is missing: the batch again, one write at
        // a time, names it as the contract says.
        failed: (error, step) =>
          step && "group" in step && isForeignKeyViolation(error)
            ? transaction(oneByOne(valid ?? encodeWrites(writes)))
            : this.#explain(error, step && "write" in step ? step.write : undefined),
        committing: (xid) => {
          inDoubt = xid
        },
      })
    if (steps && isReplayable(steps)) {
      const alone = () =>
        this.#retry(async () => {
          await this.#open()
          await applyStep(this.#pool, this.#writer, steps[0]!).catch((error: unknown) => {
            if (!isForeignKeyViolation(error)) throw error
            return transaction(oneByOne(valid!))
          })
        })
      return this.#puts.put(steps[0]!, alone)
    }
    await this.#retry(async () => {
      await this.#open()
      if (inDoubt !== undefined) {
        if ((await outcome(this.#pool, inDoubt)) === "committed") return
        inDoubt = undefined
      }
      return transaction(steps ?? chunkedSteps(writes))
    })
  }

  close(): Promise<void> {
    // Calls waiting to go together were made before close(): each gets its attempt.
    this.#puts.sendAll()
    this.#reads.sendAll()
    // Calls waiting to retry stop waiting, and fail as closed.
    this.#waits.close()
    this.#closing ??= (async () => {
      await Promise.all([this.#puts.drained(), this.#reads.drained()])
      // The coordinator's last sends still use the pool.
      await this.coordinator.close()
      this.#closed = true
      if (this.#ownsPool) await this.#pool.end()
    })()
    return this.#closing
  }

  /** A failed write's error as the contract names it (see explainFailure). */
  #explain(error: unknown, write: StorageWrite | undefined): Promise<never> {
    return explainFailure(
      error,
      write,
      async (sessionID) => (await this.#query("hasSession", [sessionID])).length > 0,
    )
  }

  async #requireSession(sessionID: string): Promise<void> {
    if ((await this.#rows("hasSession", [sessionID])).length === 0)
      throw NotFoundError.of("Session", sessionID)
  }

  /** Messages with their parts, read by one of the listing statements (see readMessages). */
  #listing(query: Query, args: unknown[]) {
    return this.#retry(async () => {
      await this.#open()
      return readMessages(this.#pool, this.#statements.of(query, args), this.#decoders)
    })
  }

  readonly #decoders = {
    message: (id: string, stamp: string | null, data: string) => this.#decode("message", { id, stamp, data }),
    part: (id: string, stamp: string | null, data: string) => this.#decode("part", { id, stamp, data }),
  }

  /** Several sessions' messages, read by one statement of `listedOf` (see readListings). */
  #listings(query: Query, args: unknown[], keyOf: (sessionID: string, messageID: string) => string) {
    return this.#retry(async () => {
      await this.#open()
      return readListings(this.#pool, this.#statements.of(query, args), this.#decoders, keyOf)
    })
  }

  /** A stored row, validated unless it carries this version's stamp, of either sign (see queries.ts). */
  #decode<K extends "session" | "message" | "part">(kind: K, row: Row) {
    const stamp = row.stamp === null ? undefined : Math.abs(Number(row.stamp))
    return readJsonRow(kind, row.id, row.data, stamp === this.#writer.stamp)
  }

  /** A read, run again on another connection while the connection fails (see `retry`). */
  #rows<T extends pg.QueryResultRow>(query: Query, args: unknown[]): Promise<T[]> {
    return this.#retry(() => this.#query<T>(query, args))
  }

  async #query<T extends pg.QueryResultRow>(query: Query, args: unknown[]): Promise<T[]> {
    await this.#open()
    return (await this.#pool.query<T>(this.#statements.of(query, args))).rows
  }

  #retry<T>(attempt: () => Promise<T>): Promise<T> {
    return retrying(attempt, this.#retrying)
  }

  /**
   * The schema, migrated once per instance. A failure to reach the server is tried again by the
   * next call; any other failure (SchemaVersionError) fails every call.
   */
  #open(): Promise<void> {
    if (this.#closed) return Promise.reject(closedError())
    this.#ready ??= (async () => {
      const { client, done } = await checkout(this.#pool)
      await migrate(client, this.#schema).then(
        () => done(),
        (error: unknown) => {
          done(error)
          throw error
        },
      )
    })().catch((error: unknown) => {
      const fault = postgresFault(error)
      if (fault && isTransient(fault.reason)) this.#ready = undefined
      throw error
    })
    return this.#ready
  }
}

function closedError(): StorageClosedError {
  return new StorageClosedError({
    message: "PostgresStorage is closed: create a new one to use the database again",
  })
}

/** A query limit as LIMIT takes it: null means none; like Array.slice, fractions truncate. */
function rowLimit(limit: number | undefined): number | null {
  if (limit === undefined || limit === Number.POSITIVE_INFINITY) return null
  return Math.max(0, Math.trunc(limit) || 0)
}
