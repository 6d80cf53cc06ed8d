/**
 * Keeping a session inside the model's context window: the compaction settings, the summary
 * with a retained tail, overflow recovery and pruning of old tool outputs. Use its `Config` to
 * tune compaction in `RuntimeOptions`; see docs/compaction.md.
 */
export * as Compaction from "./compaction.js"
