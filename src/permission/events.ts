import { z } from "zod"
import { define } from "../bus/event.js"
import { schema as id } from "../id/identifier.js"
import { Reply, Request } from "./schema.js"

/**
 * The permission events: a request asked (`permission.asked`) and replied (`permission.replied`),
 * with their zod schemas. Use them with `runtime.events.on`.
 */
export const Event = {
  Asked: define("permission.asked", Request),
  Replied: define(
    "permission.replied",
    z.object({ sessionID: id("session"), requestID: id("permission"), reply: Reply }),
  ),
}
