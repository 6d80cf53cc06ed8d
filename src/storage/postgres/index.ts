export { SchemaVersionError } from "../schema-version-error.js"
export { StorageClosedError } from "../storage-closed-error.js"
export { PostgresCoordinator } from "./coordinator.js"
export { PostgresStorage, type PostgresStorageOptions } from "./postgres-storage.js"
