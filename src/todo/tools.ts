import { z } from "zod"
import type { Todo } from "../schema/session.js"
import { define, type Result } from "../tool/tool.js"
import { openCount, TodoList } from "./list.js"
import type { Todos } from "./todos.js"

/** The arguments of the `todowrite` tool: the whole list that replaces the session's. */
export const TodoWriteParameters = z.object({
  todos: TodoList.describe("The whole updated list: every item to keep, not only the ones that changed."),
})
export type TodoWriteParameters = z.infer<typeof TodoWriteParameters>

/** The arguments of the `todoread` tool: none. */
export const TodoReadParameters = z.object({})

const WRITE_DESCRIPTION = `Create or update the todo list of this session: a plan of the work the user can follow as it progresses.

Each call replaces the whole list, so send every item you want to keep. An item has:
- id: a short identifier that stays the same while the item is on the list.
- content: what to do, as a specific, actionable step.
- status: pending (not started), in_progress (being worked on now), completed (done) or cancelled (no longer needed).
- priority: high, medium or low.

Use it for work of three or more distinct steps, when the user gives several tasks at once, or when the user asks for a todo list. Write the list as soon as you know the steps, and add follow-up items as you discover them.

Keep exactly one item in_progress while you work: mark it in_progress before you start, and completed right after you finish it (one update per item, not in batches). Cancel items that no longer apply.

Skip it for a single simple task, a question that needs only an answer, or anything done in one or two trivial steps.`

const READ_DESCRIPTION = `Read the todo list of this session: every item with its id, content, status and priority.

Use it to check what is left before choosing the next step, or after a long stretch of work to see where the plan stands. It takes no arguments.`

/** The list as the model reads it back, and a title counting what is still open. */
export function listResult(todos: readonly Todo[]): Result {
  const open = openCount(todos)
  return {
    title: `${open} open ${open === 1 ? "todo" : "todos"}`,
    output: JSON.stringify(todos, null, 2),
    metadata: { todos },
  }
}

/**
 * The built-in `todowrite` and `todoread` tools over a session's list. Each call asks its
 * permission (pattern `*`), as every built-in tool does, so that an "ask" rule holds; the
 * built-in rules allow both for primary agents and deny both to sub-agents, whose denied
 * tools are not offered at all.
 */
export function createTodoTools(todos: Pick<Todos, "get" | "set">) {
  return [
    define("todowrite", {
      description: WRITE_DESCRIPTION,
      fileChanges: "none",
      parameters: TodoWriteParameters,
      async execute(args, context) {
        await context.ask({ permission: "todowrite", patterns: ["*"], always: ["*"] })
        return listResult(await todos.set(context.sessionID, args.todos))
      },
    }),
    define("todoread", {
      description: READ_DESCRIPTION,
      fileChanges: "none",
      parameters: TodoReadParameters,
      async execute(_args, context) {
        await context.ask({ permission: "todoread", patterns: ["*"], always: ["*"] })
        return listResult(await todos.get(context.sessionID))
      },
    }),
  ] as const
}
