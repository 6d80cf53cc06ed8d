import { Todo } from "../../schema/session.js"

/** A to-do as OpenCode sends it: without the ID the library keys it by. */
export const WireTodo = Todo.omit({ id: true })

export function toWireTodo({ id: _, ...todo }: Todo) {
  return todo
}
