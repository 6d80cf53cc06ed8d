/**
 * One model call turned into stored parts: streams a step, writes text, reasoning and tool
 * parts as they arrive, and runs tool calls. The session loop uses it; use it directly only to
 * drive a single step yourself; see docs/processor.md.
 */
export * as SessionProcessor from "./session-processor.js"
