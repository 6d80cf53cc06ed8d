import { z } from "zod"
import { define } from "../bus/event.js"
import { schema as id } from "../id/identifier.js"
import { Info } from "./info.js"
import { Part } from "./part.js"

/**
 * The message events, each a type and the zod schema of its properties: a message updated or
 * removed, a part updated or removed, and a part's streamed delta. Use them with
 * `runtime.events.on(MessageV2.Event.X.type, ...)`; see docs/events.md.
 */
export const Event = {
  Updated: define("message.updated", z.object({ sessionID: id("session"), info: Info })),
  Removed: define("message.removed", z.object({ sessionID: id("session"), messageID: id("message") })),
  PartUpdated: define("message.part.updated", z.object({ sessionID: id("session"), part: Part })),
  PartRemoved: define(
    "message.part.removed",
    z.object({ sessionID: id("session"), messageID: id("message"), partID: id("part") }),
  ),
  /** A streamed piece of a text or reasoning part: published, never written to storage. */
  PartDelta: define(
    "message.part.delta",
    z.object({
      sessionID: id("session"),
      messageID: id("message"),
      partID: id("part"),
      field: z.literal("text"),
      delta: z.string(),
    }),
  ),
}
