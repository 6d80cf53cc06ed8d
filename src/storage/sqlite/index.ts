export type { SqliteDatabase, SqliteStatement, SqliteValue } from "./driver.js"
export { SchemaVersionError } from "./schema-version-error.js"
export { SqliteStorage } from "./sqlite-storage.js"
export { SqliteOpenError, StorageClosedError } from "./storage-errors.js"
