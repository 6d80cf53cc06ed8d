/**
 * Durable storage in PostgreSQL (`PostgresStorage`), with the coordinator that lets runtimes of
 * several processes share it. See docs/storage.md.
 *
 * @module agentloop-sdk/storage/postgres
 */
export { SessionMovedError } from "../../coordination/session-moved-error.js"
export type { StorageRetryOptions } from "../retry.js"
export { SchemaVersionError } from "../schema-version-error.js"
export { StorageClosedError } from "../storage-closed-error.js"
export { StorageError, type StorageErrorData, type StorageErrorReason } from "../storage-error.js"
export { PostgresCoordinator } from "./coordinator.js"
export type { PostgresStorageOptions } from "./options.js"
export { PostgresStorage } from "./postgres-storage.js"
