/**
 * Storage in a SQLite-backed Cloudflare Durable Object (`DurableObjectSqliteStorage`): one
 * conversation per object. See docs/cloudflare-workers.md.
 *
 * @module agentloop-sdk/storage/durable-object
 */
export { SchemaVersionError } from "../schema-version-error.js"
export { StorageError, type StorageErrorData, type StorageErrorReason } from "../storage-error.js"
export { DurableObjectSqliteStorage } from "./durable-object-storage.js"
export {
  type DurableObjectSqlStorage,
  durableObjectDatabase,
  type SqlStorageCursor,
  type SqlStorageValue,
} from "./sql-database.js"
