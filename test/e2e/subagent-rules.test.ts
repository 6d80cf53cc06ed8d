import { describe, expect, it } from "vitest"
import { type MessageV2, Permission } from "../../src/index.js"
import { type CallOptions, createTestRuntime, say } from "../../src/testing/index.js"

const toolNames = (call: CallOptions | undefined) => (call?.tools ?? []).map((tool) => tool.name).sort()
const description = (call: CallOptions | undefined, name: string) => {
  const tool = call?.tools?.find((candidate) => candidate.name === name)
  return tool && "description" in tool ? (tool.description ?? "") : ""
}
/** A child's conversation opens with the task's prompt; its parent's with the user's request. */
const isChild = (call: CallOptions) => {
  const first = call.prompt.find((message) => message.role === "user")
  const content = first?.role === "user" ? first.content[0] : undefined
  return content?.type === "text" && content.text.startsWith("child work")
}
const taskCall = (agent: string) =>
  say.toolCall("task", { description: "Work", prompt: "child work", subagent_type: agent })

/** A parent that delegates to `agent` once, and a child that answers at once. */
function delegating(agent: string, options: Parameters<typeof createTestRuntime>[0] = {}) {
  const turn = (call: CallOptions) => {
    if (isChild(call)) return [say.text("child done")]
    return JSON.stringify(call.prompt).includes("tool-result") ? [say.text("parent done")] : [taskCall(agent)]
  }
  return createTestRuntime({ turns: Array.from({ length: 6 }, () => turn), ...options })
}

const allowAll = Permission.fromConfig({ "*": "allow" })

describe("what a host's sub-agent may use", () => {
  it("offers a host's sub-agent neither task, question, todowrite nor todoread", async () => {
    const { runtime, model } = delegating("helper", {
      agents: { helper: { mode: "subagent", description: "Helps", permission: allowAll } },
      question: true,
      todos: true,
    })
    const session = await runtime.session.create()
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "go" }] })
    const child = model.calls.find(isChild)
    expect(child).toBeDefined()
    for (const tool of ["task", "question", "todowrite", "todoread"])
      expect(toolNames(child)).not.toContain(tool)
    // The parent keeps them.
    expect(toolNames(model.calls[0])).toEqual(expect.arrayContaining(["task", "todowrite", "todoread"]))
  })

  it("lets a sub-agent whose own rules allow one of them keep that one", async () => {
    const { runtime, model } = delegating("helper", {
      agents: {
        helper: {
          mode: "subagent",
          description: "Helps",
          permission: Permission.fromConfig({ "*": "allow", todowrite: "allow", task: "allow" }),
        },
      },
      question: true,
      todos: true,
    })
    const session = await runtime.session.create()
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "go" }] })
    const names = toolNames(model.calls.find(isChild))
    expect(names).toEqual(expect.arrayContaining(["todowrite", "task"]))
    expect(names).not.toContain("todoread")
    expect(names).not.toContain("question")
  })

  it("applies the same denies to a subtask part and a subtask command", async () => {
    const { runtime, model } = createTestRuntime({
      agents: { helper: { mode: "subagent", description: "Helps", permission: allowAll } },
      commands: { help: { template: "child work from a command", agent: "helper", subtask: true } },
      question: true,
      todos: true,
      turns: Array.from({ length: 6 }, () => (call: CallOptions) => [
        say.text(isChild(call) ? "child done" : "parent done"),
      ]),
    })
    const session = await runtime.session.create()
    await runtime.session.prompt({
      sessionID: session.id,
      parts: [{ type: "subtask", prompt: "child work", description: "Work", agent: "helper" }],
    })
    await runtime.session.command({ sessionID: session.id, command: "help" })
    const children = model.calls.filter(isChild)
    expect(children).toHaveLength(2)
    for (const call of children)
      for (const tool of ["task", "question", "todowrite", "todoread"])
        expect(toolNames(call)).not.toContain(tool)
  })
})

describe("the task tool's description", () => {
  it("lists only the sub-agents the caller may start, sorted by name", async () => {
    const subagent = (description: string) => ({
      mode: "subagent" as const,
      description,
      permission: allowAll,
    })
    const { runtime, model } = createTestRuntime({
      agents: {
        zeta: subagent("Zeta helps"),
        alpha: subagent("Alpha helps"),
        secret: subagent("Secret helps"),
      },
      permission: Permission.fromConfig({ task: { "*": "allow", secret: "deny" } }),
      turns: [[say.text("ok")]],
    })
    const session = await runtime.session.create()
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "hi" }] })
    const text = description(model.calls[0], "task")
    expect(text).not.toContain("secret")
    const listed = [...text.matchAll(/^- (\w+):/gm)].map((match) => match[1])
    expect(listed).toEqual(["alpha", "general", "zeta"])
  })
})

describe("a task tool part", () => {
  it("records the model the sub-agent ran on beside its session", async () => {
    const { runtime } = delegating("general", { task: true })
    const session = await runtime.session.create()
    const updates: MessageV2.ToolPart[] = []
    runtime.events.on("message.part.updated", ({ properties }) => {
      if (properties.part.type === "tool" && properties.part.tool === "task") updates.push(properties.part)
    })
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "go" }] })
    const [child] = await runtime.session.children(session.id)
    const model = { providerID: "scripted", modelID: "scripted-model" }
    // While it runs (a UI shows it then) and once it completed.
    const running = updates.find((part) => part.state.status === "running" && part.state.metadata?.sessionID)
    expect(running?.state.status === "running" && running.state.metadata).toMatchObject({
      sessionID: child!.id,
      model,
    })
    const stored = (await runtime.session.messages(session.id))
      .flatMap((message) => message.parts)
      .find((part): part is MessageV2.ToolPart => part.type === "tool" && part.tool === "task")
    expect(stored?.state.status).toBe("completed")
    expect(stored?.state.status === "completed" && stored.state.metadata).toMatchObject({
      sessionID: child!.id,
      model,
    })
  })
})
