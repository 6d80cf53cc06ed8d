export * as Compaction from "./compaction.js"
