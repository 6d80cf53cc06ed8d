/**
 * The HTTP server over a runtime, speaking OpenCode's server API so that OpenCode's SDK and
 * terminal UI drive it (`createServer`, `serve`), and the AI SDK UI adapters (`chatHandler`,
 * `toUIMessageStream`). See docs/server.md, docs/serve.md and docs/ui.md.
 *
 * @module agentloop-sdk/server
 */
export { type ChatHandlerOptions, chatHandler } from "./chat.js"
export { createServer } from "./create-server.js"
export { errorStatus } from "./error-status.js"
export { ForbiddenHostError, PayloadTooLargeError, UnauthorizedError } from "./errors.js"
export type { ServerOptions } from "./options.js"
export { type RunningServer, type ServeOptions, serve } from "./serve.js"
export type { UIChunk } from "./ui-chunk.js"
export { toUIMessageStream, type UIMessageStreamOptions } from "./ui-stream.js"
