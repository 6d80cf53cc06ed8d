import { describe, expect, it } from "vitest"
import { createBus } from "../../src/bus/bus.js"
import type { MessageV2, Permission, Session, Tool } from "../../src/index.js"
import type { Event } from "../../src/schema/events.js"
import { MemoryStorage } from "../../src/storage/memory.js"
import { createBuilders, createTestRuntime, say } from "../../src/testing/index.js"
import { createTodos } from "../../src/todo/todos.js"
import { createTodoTools } from "../../src/todo/tools.js"
import { runTool } from "../../src/tool/ai-tools.js"
import { InvalidToolArgumentsError } from "../../src/tool/errors.js"
import { toolInputSchema } from "../../src/tool/json-schema.js"
import { rejection } from "../session/helpers.js"

const plan: Session.Todo[] = [
  { id: "1", content: "Write the schema", status: "completed", priority: "high" },
  { id: "2", content: "Write the service", status: "in_progress", priority: "high" },
  { id: "3", content: "Write the docs", status: "pending", priority: "low" },
  { id: "4", content: "Write a migration", status: "cancelled", priority: "medium" },
]

async function setup() {
  const storage = new MemoryStorage()
  const bus = createBus()
  const events: Event[] = []
  bus.onAny((event) => {
    events.push(event)
  })
  const session = createBuilders().session()
  await storage.write([{ type: "session.put", info: session }])
  const todos = createTodos({ storage, bus, assertOpen: () => {} })
  const [todowrite, todoread] = createTodoTools(todos)
  const asked: { permission: string; patterns: string[] }[] = []
  const context: Tool.Context = {
    sessionID: session.id,
    messageID: "message",
    callID: "call",
    agent: "build",
    abort: new AbortController().signal,
    metadata: async () => {},
    ask: async ({ permission, patterns }) => {
      asked.push({ permission, patterns })
    },
  }
  return { todos, events, todowrite, todoread, context, asked, sessionID: session.id }
}

describe("todowrite", () => {
  it("asks its permission, replaces the session's list and returns it, counting open items in the title", async () => {
    const { todos, todowrite, todoread, context, asked, sessionID } = await setup()
    const result = await runTool(todowrite, { todos: plan }, context)
    await runTool(todoread, {}, context)
    expect(asked).toEqual([
      { permission: "todowrite", patterns: ["*"] },
      { permission: "todoread", patterns: ["*"] },
    ])
    expect(result).toEqual({
      title: "2 open todos",
      output: JSON.stringify(plan, null, 2),
      metadata: { todos: plan },
    })
    expect(await todos.get(sessionID)).toEqual(plan)
  })

  it("says 1 open todo, and 0 when everything is done or cancelled", async () => {
    const { todowrite, context } = await setup()
    expect((await runTool(todowrite, { todos: plan.slice(1, 2) }, context)).title).toBe("1 open todo")
    expect((await runTool(todowrite, { todos: [plan[0], plan[3]] }, context)).title).toBe("0 open todos")
  })

  it("publishes todo.updated for the calling session", async () => {
    const { todowrite, context, events, sessionID } = await setup()
    await runTool(todowrite, { todos: plan }, context)
    expect(events).toEqual([{ type: "todo.updated", properties: { sessionID, todos: plan } }])
  })

  it("refuses bad arguments as a tool error naming the field, and stores nothing", async () => {
    const { todos, todowrite, context, sessionID } = await setup()
    const error = await rejection(runTool(todowrite, { todos: [{ ...plan[0], status: "done" }] }, context))
    expect(InvalidToolArgumentsError.isInstance(error)).toBe(true)
    expect(error.message).toContain("todos.0.status")
    expect(await todos.get(sessionID)).toEqual([])
  })

  it("offers the model a JSON schema of the items", () => {
    const [todowrite] = createTodoTools({ get: async () => [], set: async () => [] })
    const schema = toolInputSchema(todowrite) as {
      properties: { todos: { items: { required: string[] } } }
    }
    expect(schema.properties.todos.items.required).toEqual(["id", "content", "status", "priority"])
  })
})

describe("todoread", () => {
  it("returns [] before any write, then the stored list", async () => {
    const { todowrite, todoread, context } = await setup()
    expect(await runTool(todoread, {}, context)).toEqual({
      title: "0 open todos",
      output: "[]",
      metadata: { todos: [] },
    })
    await runTool(todowrite, { todos: plan }, context)
    expect(await runTool(todoread, {}, context)).toEqual({
      title: "2 open todos",
      output: JSON.stringify(plan, null, 2),
      metadata: { todos: plan },
    })
  })

  it("publishes nothing", async () => {
    const { todoread, context, events } = await setup()
    await runTool(todoread, {}, context)
    expect(events).toEqual([])
  })
})

describe("the todo tools in a session", () => {
  it("let the model write then read its list; a denied tool is not offered", async () => {
    const storage = new MemoryStorage()
    const todos = createTodos({ storage, bus: createBus(), assertOpen: () => {} })
    const { runtime, model } = createTestRuntime({
      storage,
      tools: [...createTodoTools(todos)],
      turns: [
        [say.toolCall("todowrite", { todos: plan })],
        [say.toolCall("todoread", {})],
        [say.text("Two items left.")],
      ],
    })
    const session = await runtime.session.create()
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "plan it" }] })

    expect(await todos.get(session.id)).toEqual(plan)
    const tools = (await runtime.session.messages(session.id))
      .flatMap((message) => message.parts)
      .filter((part): part is MessageV2.ToolPart => part.type === "tool")
    expect(tools.map((part) => [part.tool, part.state.status])).toEqual([
      ["todowrite", "completed"],
      ["todoread", "completed"],
    ])
    const read = tools[1]!.state
    expect(read.status === "completed" && JSON.parse(read.output)).toEqual(plan)
    expect(model.calls[0]?.tools?.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(["todowrite", "todoread"]),
    )

    // Sub-agents deny both rules, which takes the tools off their list rather than failing a call.
    const offered = (ruleset: Permission.Ruleset) => runtime.tools.enabled({ ruleset }).map((tool) => tool.id)
    expect(offered(runtime.agents.build!.permission)).toEqual(
      expect.arrayContaining(["todowrite", "todoread"]),
    )
    expect(offered(runtime.agents.general!.permission)).not.toContain("todowrite")
    expect(offered(runtime.agents.general!.permission)).not.toContain("todoread")
  })
})
