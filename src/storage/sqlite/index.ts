/**
 * Durable storage in one SQLite file (`SqliteStorage`), with the coordinator that lets runtimes
 * of several processes share it. See docs/storage.md.
 *
 * @module agentloop-sdk/storage/sqlite
 */
export type { StorageRetryOptions } from "../retry.js"
export { SchemaVersionError } from "../schema-version-error.js"
export { StorageClosedError } from "../storage-closed-error.js"
export { StorageError, type StorageErrorData, type StorageErrorReason } from "../storage-error.js"
export { SqliteCoordinator } from "./coordinator.js"
export type { SqliteCoordinatorOptions } from "./coordinator-options.js"
export type { SqliteDatabase, SqliteDriver, SqliteStatement, SqliteValue } from "./driver.js"
export { SqliteStorage, type SqliteStorageOptions } from "./sqlite-storage.js"
export { SqliteOpenError } from "./storage-errors.js"
