import { describe, expect, it } from "vitest"
import { type Event, InvalidInputError, MemoryStorage, NotFoundError, type Todo } from "../../src/index.js"
import { createTestRuntime, say } from "../../src/testing/index.js"

const plan: Todo.Info[] = [
  { id: "1", content: "Read the parser", status: "completed", priority: "high" },
  { id: "2", content: "Fix the off-by-one", status: "in_progress", priority: "high" },
  { id: "3", content: "Add a test", status: "pending", priority: "medium" },
]

describe("todos in a session", () => {
  it("the model writes and reads its list; the session keeps it, publishes it, and drops it on removal", async () => {
    const storage = new MemoryStorage()
    const { runtime, model } = createTestRuntime({
      storage,
      todos: true,
      task: true,
      turns: [
        [say.toolCall("todowrite", { todos: plan })],
        [say.toolCall("todoread", {})],
        [say.toolCall("task", { description: "Look", prompt: "look around", subagent_type: "general" })],
        [say.text("looked")],
        [say.text("ok")],
      ],
    })
    const events: Event[] = []
    runtime.events.on("todo.updated", (event) => {
      events.push(event)
    })
    const session = await runtime.session.create({ title: "todos" })
    expect(await runtime.session.todos(session.id)).toEqual([])
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "plan it" }] })

    expect(await runtime.session.todos(session.id)).toEqual(plan)
    expect(events).toEqual([{ type: "todo.updated", properties: { sessionID: session.id, todos: plan } }])
    const tools = (await runtime.session.messages(session.id))
      .flatMap((message) => message.parts)
      .filter((part) => part.type === "tool")
    expect(tools.map((part) => [part.tool, part.state.status])).toEqual([
      ["todowrite", "completed"],
      ["todoread", "completed"],
      ["task", "completed"],
    ])
    const read = tools[1]!.state
    expect(read.status === "completed" && JSON.parse(read.output)).toEqual(plan)
    const offered = (index: number) => model.calls[index]!.tools?.map((tool) => tool.name) ?? []
    expect(offered(0)).toEqual(expect.arrayContaining(["todowrite", "todoread"]))
    // The sub-agent's call: the list belongs to the parent.
    expect(offered(3)).not.toContain("todowrite")
    expect(offered(3)).not.toContain("todoread")

    await expect(runtime.session.todos("nope")).rejects.toSatisfy((error) =>
      InvalidInputError.isInstance(error),
    )
    await expect(runtime.session.todos("ses_01ZZZZZZZZZZZZZZZZZZZZZZZZ")).rejects.toSatisfy((error) =>
      NotFoundError.isInstance(error),
    )
    await runtime.session.remove(session.id)
    expect(await storage.listValues("todo/")).toEqual([])
  })
})
