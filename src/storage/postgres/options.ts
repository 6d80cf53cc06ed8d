import type { RetryPolicy, StorageRetryOptions } from "../retry.js"

/**
 * The second argument of `new PostgresStorage(pool, options)`: the PostgreSQL schema of the
 * tables and how calls that lost their connection are retried. The constructor throws
 * InvalidInputError, naming the field, for a malformed option (a schema name outside
 * `[a-z_][a-z0-9_]*`, up to 41 characters).
 */
export type PostgresStorageOptions = {
  /**
   * The PostgreSQL schema that holds the tables, created when missing; default "agentloop".
   * Apps (or tests) sharing a database keep apart with a schema each.
   */
  schema?: string
  /**
   * How a call that lost its connection, or found the server restarting, is retried (on a new
   * connection): `maxAttempts` retries after the first attempt, waits doubling from 50 ms up
   * to `maxDelayMs`. Default `{ maxAttempts: 8, maxDelayMs: 2000 }`: about 6 s in all, which
   * rides out a server restart.
   */
  retry?: StorageRetryOptions
  /**
   * Whether statements are prepared: each connection parses and plans a statement once, under a
   * name, and later runs only bind it. Default true; set false behind a pooler that hands a
   * client another server connection per transaction and does not carry prepared statements
   * over (PgBouncer's transaction mode before 1.21).
   */
  prepare?: boolean
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 8, maxDelayMs: 2000, firstDelayMs: 50 }

/**
 * How long a statement may run before the calls waiting behind it go without it (see "behind"
 * in grouping.ts): what one slow statement (a lock, a large row, a long listing) can delay the
 * other sessions' puts and reads by.
 */
export const STALL_MS = 20
