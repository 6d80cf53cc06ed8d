import type { SqliteDatabase } from "./driver.js"

/**
 * A database that runs its transactions itself, by a callback: a Durable Object's SQL refuses
 * BEGIN, COMMIT and SAVEPOINT and offers `transactionSync` instead, which commits when the
 * callback returns and rolls back when it throws.
 */
export type NativeTransactions = { transactionSync<T>(body: () => T): T }

/** The database's own transactions, when it has them (see NativeTransactions). */
export function nativeTransactions(db: SqliteDatabase): NativeTransactions | undefined {
  const candidate = db as SqliteDatabase & Partial<NativeTransactions>
  return typeof candidate.transactionSync === "function" ? (candidate as NativeTransactions) : undefined
}
