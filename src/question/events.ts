import { z } from "zod"
import { define } from "../bus/event.js"
import { schema as id } from "../id/identifier.js"
import { Answer, Request } from "./schema.js"

/**
 * The question events: asked, replied and rejected, with their zod schemas. Use them with
 * `runtime.events.on`.
 */
export const Event = {
  Asked: define("question.asked", Request),
  Replied: define(
    "question.replied",
    z.object({ sessionID: id("session"), requestID: id("question"), answers: z.array(Answer) }),
  ),
  Rejected: define("question.rejected", z.object({ sessionID: id("session"), requestID: id("question") })),
}
