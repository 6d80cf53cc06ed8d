export { CorruptRowError } from "./corrupt-row.js"
export { MemoryStorage } from "./memory.js"
export type { MessageQuery, SessionQuery, Storage, StorageWrite } from "./port.js"
