import { z } from "zod"
import { define } from "../bus/event.js"
import { schema as id } from "../id/identifier.js"
import { AssistantError } from "../message/errors.js"
import { FileDiff } from "../snapshot/schema.js"
import { Info } from "./info.js"
import { Status } from "./status.js"
import { Todo } from "./todo.js"

const sessionID = id("session")

/**
 * The session events, each a type and the zod schema of its properties: created, updated,
 * deleted, status, idle, error, diff and the others in docs/events.md. Use them with
 * `runtime.events.on(Session.Event.X.type, ...)`.
 */
export const Event = {
  Created: define("session.created", z.object({ sessionID, info: Info })),
  Updated: define("session.updated", z.object({ sessionID, info: Info })),
  Deleted: define("session.deleted", z.object({ sessionID, info: Info })),
  Error: define("session.error", z.object({ sessionID, error: AssistantError })),
  Diff: define("session.diff", z.object({ sessionID, diff: z.array(FileDiff) })),
  Status: define("session.status", z.object({ sessionID, status: Status })),
  Idle: define("session.idle", z.object({ sessionID })),
  Compacted: define("session.compacted", z.object({ sessionID })),
  TodoUpdated: define("todo.updated", z.object({ sessionID, todos: z.array(Todo) })),
}
