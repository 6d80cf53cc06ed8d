import { z } from "zod"
import type { Bus } from "../bus/bus.js"
import { parseInput } from "../error/invalid-input.js"
import { NotFoundError } from "../error/not-found.js"
import { parseID } from "../id/parse-id.js"
import type { Todo } from "../schema/session.js"
import { todoKey } from "../session/values.js"
import { CorruptRowError } from "../storage/corrupt-row.js"
import type { Storage } from "../storage/port.js"
import { TodoList } from "./list.js"

// Wrapped so that an issue's path names the argument: "todos.1.status".
const SetInput = z.object({ todos: TodoList })

/**
 * What `createTodos` works with: the storage that keeps the lists, the bus it publishes
 * `todo.updated` on, and the runtime's open check. A runtime passes its own; a custom loop
 * passes the same ones to keep its lists where the runtime would.
 */
export type TodoDeps = {
  /** Keeps each session's list in its key-value area. */
  storage: Storage
  /** Where `set` publishes `todo.updated`. */
  bus: Bus
  /** Throws RuntimeClosedError once the runtime is closed. */
  assertOpen(): void
}

/**
 * The todo service from `createTodos`: `get(sessionID)` reads a session's list, `set(sessionID,
 * todos)` replaces it. Both throw InvalidInputError for a malformed ID or list, NotFoundError
 * when the session does not exist, RuntimeClosedError once the runtime is closed; `get` throws
 * CorruptRowError when the stored list fails its schema. `createTodoTools` takes one.
 */
export type Todos = ReturnType<typeof createTodos>

/** The storage key of a session's list; `todo/` keys are reserved for this service. */

/**
 * Todo lists, one per session, kept in the storage's key-value area. A list is written whole:
 * the model always sends the full list, so there is no item-level merge to get wrong.
 */
export function createTodos(deps: TodoDeps) {
  const { storage, bus } = deps

  async function requireSession(sessionID: string) {
    if (!(await storage.getSession(sessionID))) throw NotFoundError.of("Session", sessionID)
  }

  return {
    /** The session's list, `[]` until one is set. NotFoundError if the session does not exist. */
    async get(sessionID: string): Promise<Todo[]> {
      deps.assertOpen()
      parseID("sessionID", "session", sessionID)
      await requireSession(sessionID)
      const key = todoKey(sessionID)
      const value = await storage.getValue(key)
      if (value === undefined) return []
      const parsed = TodoList.safeParse(value)
      if (parsed.success) return parsed.data
      throw new CorruptRowError({
        kind: "value",
        id: key,
        message: `Stored todo list ${key} does not match its schema`,
      })
    },

    /** Replaces the session's list and publishes `todo.updated`; returns the list as stored. */
    async set(sessionID: string, todos: readonly Todo[]): Promise<Todo[]> {
      deps.assertOpen()
      parseID("sessionID", "session", sessionID)
      const list = parseInput("todos.set input", SetInput, { todos }).todos
      await requireSession(sessionID)
      await storage.write([{ type: "value.put", key: todoKey(sessionID), value: list }])
      bus.publish("todo.updated", { sessionID, todos: list })
      return list
    },
  }
}
