import { z } from "zod"
import { define } from "../bus/event.js"
import { schema as id } from "../id/identifier.js"
import { Reply, Request } from "./schema.js"

export const Event = {
  Asked: define("permission.asked", Request),
  Replied: define(
    "permission.replied",
    z.object({ sessionID: id("session"), requestID: id("permission"), reply: Reply }),
  ),
}
