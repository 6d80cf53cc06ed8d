export * as SessionProcessor from "./session-processor.js"
