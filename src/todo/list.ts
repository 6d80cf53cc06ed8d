import { z } from "zod"
import { quote } from "../error/quote.js"
import { Todo } from "../schema/session.js"

/**
 * A session's whole todo list. IDs are unique within it: a UI keys its rows on them, and a
 * model that repeats one has most likely mixed up two items.
 */
export const TodoList = z.array(Todo).superRefine((todos, context) => {
  const seen = new Set<string>()
  todos.forEach((todo, index) => {
    if (seen.has(todo.id))
      context.addIssue({
        code: "custom",
        path: [index, "id"],
        message: `duplicate ID ${quote(todo.id)}`,
      })
    seen.add(todo.id)
  })
})

/** Items still to do: neither completed nor cancelled. */
export function openCount(todos: readonly Todo[]): number {
  return todos.filter((todo) => todo.status === "pending" || todo.status === "in_progress").length
}
