import { randomUUID } from "node:crypto"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { createBus } from "../../src/bus/bus.js"
import { InvalidInputError, NotFoundError, RuntimeClosedError, type Session } from "../../src/index.js"
import type { Event } from "../../src/schema/events.js"
import { CorruptRowError } from "../../src/storage/corrupt-row.js"
import { MemoryStorage } from "../../src/storage/memory.js"
import type { Storage } from "../../src/storage/port.js"
import { SqliteStorage } from "../../src/storage/sqlite/index.js"
import { createBuilders } from "../../src/testing/index.js"
import { createTodos } from "../../src/todo/todos.js"
import { rejection } from "../session/helpers.js"

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "agentloop-todo-"))
afterAll(() => fs.rmSync(directory, { recursive: true, force: true }))

const plan: Session.Todo[] = [
  { id: "1", content: "Write the schema", status: "completed", priority: "high" },
  { id: "2", content: "Write the service", status: "in_progress", priority: "high" },
  { id: "3", content: "Write the docs", status: "pending", priority: "low" },
]

async function setup(storage: Storage, options: { closed?: boolean } = {}) {
  const bus = createBus()
  const events: Event[] = []
  bus.onAny((event) => {
    events.push(event)
  })
  const session = createBuilders().session()
  await storage.write([{ type: "session.put", info: session }])
  const assertOpen = () => {
    if (options.closed) throw new RuntimeClosedError({ message: "The runtime is closed" })
  }
  return { todos: createTodos({ storage, bus, assertOpen }), events, sessionID: session.id }
}

const storages: [string, () => Storage][] = [
  ["MemoryStorage", () => new MemoryStorage()],
  ["SqliteStorage", () => new SqliteStorage(path.join(directory, `${randomUUID()}.sqlite`))],
]

describe.each(storages)("Todo.createTodos on %s", (_name, makeStorage) => {
  it("gives [] for a session that has no list yet", async () => {
    const { todos, sessionID } = await setup(makeStorage())
    expect(await todos.get(sessionID)).toEqual([])
  })

  it("reads back the list it set, in order", async () => {
    const { todos, sessionID } = await setup(makeStorage())
    expect(await todos.set(sessionID, plan)).toEqual(plan)
    expect(await todos.get(sessionID)).toEqual(plan)
  })

  it("replaces the whole list on each set", async () => {
    const { todos, sessionID } = await setup(makeStorage())
    await todos.set(sessionID, plan)
    const next = [{ ...plan[2]!, status: "in_progress" as const }]
    await todos.set(sessionID, next)
    expect(await todos.get(sessionID)).toEqual(next)
    await todos.set(sessionID, [])
    expect(await todos.get(sessionID)).toEqual([])
  })

  it("keeps one list per session", async () => {
    const storage = makeStorage()
    const first = await setup(storage)
    const second = await setup(storage)
    await first.todos.set(first.sessionID, plan)
    expect(await second.todos.get(second.sessionID)).toEqual([])
  })

  it("stores the list under todo/<sessionID>", async () => {
    const storage = makeStorage()
    const { todos, sessionID } = await setup(storage)
    await todos.set(sessionID, plan)
    expect(await storage.listValues("todo/")).toEqual([{ key: `todo/${sessionID}`, value: plan }])
  })
})

describe("Todo.createTodos", () => {
  it("publishes todo.updated with the session and the whole list", async () => {
    const { todos, events, sessionID } = await setup(new MemoryStorage())
    await todos.set(sessionID, plan)
    await todos.set(sessionID, [])
    expect(events).toEqual([
      { type: "todo.updated", properties: { sessionID, todos: plan } },
      { type: "todo.updated", properties: { sessionID, todos: [] } },
    ])
  })

  it("publishes nothing on get", async () => {
    const { todos, events, sessionID } = await setup(new MemoryStorage())
    await todos.get(sessionID)
    expect(events).toEqual([])
  })

  it("survives reopening a SQLite file", async () => {
    const file = path.join(directory, `${randomUUID()}.sqlite`)
    const first = new SqliteStorage(file)
    const { todos, sessionID } = await setup(first)
    await todos.set(sessionID, plan)
    await first.close()
    const second = new SqliteStorage(file)
    expect(
      await createTodos({ storage: second, bus: createBus(), assertOpen: () => {} }).get(sessionID),
    ).toEqual(plan)
    await second.close()
  })

  it("refuses an item of unknown status, naming the field, and stores nothing", async () => {
    const { todos, events, sessionID } = await setup(new MemoryStorage())
    const bad = [plan[0], { ...plan[1], status: "done" }] as unknown as Session.Todo[]
    const error = await rejection(todos.set(sessionID, bad))
    expect(InvalidInputError.isInstance(error)).toBe(true)
    expect((error as InvalidInputError).data.issues.map((issue) => issue.path)).toEqual(["todos.1.status"])
    expect(await todos.get(sessionID)).toEqual([])
    expect(events).toEqual([])
  })

  it("refuses a list that is not an array, or an item without content", async () => {
    const { todos, sessionID } = await setup(new MemoryStorage())
    const notList = await rejection(todos.set(sessionID, "buy milk" as unknown as Session.Todo[]))
    expect((notList as InvalidInputError).data.issues[0]?.path).toBe("todos")
    const { content: _, ...noContent } = plan[0]!
    const missing = await rejection(todos.set(sessionID, [noContent] as unknown as Session.Todo[]))
    expect((missing as InvalidInputError).data.issues[0]?.path).toBe("todos.0.content")
  })

  it("refuses two items with the same ID, naming the second", async () => {
    const { todos, sessionID } = await setup(new MemoryStorage())
    const error = await rejection(todos.set(sessionID, [plan[0]!, { ...plan[1]!, id: "1" }]))
    expect(InvalidInputError.isInstance(error)).toBe(true)
    expect((error as InvalidInputError).data.issues[0]?.path).toBe("todos.1.id")
  })

  it("refuses a malformed session ID, naming it", async () => {
    const { todos } = await setup(new MemoryStorage())
    for (const call of [todos.get("nope"), todos.set("nope", plan)]) {
      const error = await rejection(call)
      expect(InvalidInputError.isInstance(error)).toBe(true)
      expect((error as InvalidInputError).data.issues[0]?.path).toBe("sessionID")
    }
  })

  it("fails with NotFoundError for a session that does not exist, and stores nothing", async () => {
    const storage = new MemoryStorage()
    const { todos, events } = await setup(storage)
    const missing = createBuilders().session().id
    for (const call of [todos.get(missing), todos.set(missing, plan)]) {
      const error = await rejection(call)
      expect(NotFoundError.isInstance(error)).toBe(true)
      expect((error as NotFoundError).data.id).toBe(missing)
    }
    expect(await storage.listValues("todo/")).toEqual([])
    expect(events).toEqual([])
  })

  it("fails with RuntimeClosedError once the runtime is closed", async () => {
    const { todos, sessionID } = await setup(new MemoryStorage(), { closed: true })
    expect(RuntimeClosedError.isInstance(await rejection(todos.get(sessionID)))).toBe(true)
    expect(RuntimeClosedError.isInstance(await rejection(todos.set(sessionID, plan)))).toBe(true)
  })

  it("reports a stored list that no longer matches the schema as a CorruptRowError naming its key", async () => {
    const storage = new MemoryStorage()
    const { todos, sessionID } = await setup(storage)
    await storage.write([{ type: "value.put", key: `todo/${sessionID}`, value: [{ id: "1" }] }])
    const error = await rejection(todos.get(sessionID))
    expect(CorruptRowError.isInstance(error)).toBe(true)
    expect((error as CorruptRowError).data).toMatchObject({ kind: "value", id: `todo/${sessionID}` })
  })
})
