import type { UIMessageChunk } from "ai"
import type { UIData, UIMetadata } from "../message/to-ui-messages.js"

/** One chunk of a session's run as an AI SDK UI message stream, typed with our metadata and data parts. */
export type UIChunk = UIMessageChunk<UIMetadata, UIData>
