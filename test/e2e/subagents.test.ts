import { describe, expect, it } from "vitest"
import { z } from "zod"
import { type MessageV2, Permission, Tool } from "../../src/index.js"
import { type CallOptions, createTestRuntime, type ScriptStep, say } from "../../src/testing/index.js"

/** What a call's prompt holds: the text of user messages and whether tool results came back. */
function read(call: CallOptions) {
  const texts = call.prompt.flatMap((message) =>
    message.role === "user"
      ? message.content.flatMap((part) => (part.type === "text" ? [part.text] : []))
      : [],
  )
  const results = call.prompt.flatMap((message) =>
    message.role === "tool"
      ? message.content.flatMap((part) => (part.type === "tool-result" ? [JSON.stringify(part.output)] : []))
      : [],
  )
  const tools = (call.tools ?? []).map((tool) => tool.name)
  return { first: texts[0] ?? "", texts, results, tools }
}

const echoed: string[] = []
const echo = Tool.define("echo", {
  description: "Echoes its text",
  parameters: z.object({ text: z.string() }),
  async execute({ text }, context) {
    await context.ask({ permission: "echo", patterns: [text] })
    echoed.push(text)
    return { title: text, output: `echo: ${text}`, metadata: {} }
  },
})

/**
 * One model for parent and children, answering by what it is sent: a child ("find X") echoes X
 * then reports; the parent delegates per `parent` and sums up once the results are back.
 */
function responder(parent: (call: ReturnType<typeof read>) => ScriptStep[]) {
  return (call: CallOptions): ScriptStep[] => {
    const seen = read(call)
    const child = /^find (\w+)$/.exec(seen.first)
    // Children report 1,000 tokens in per call, so their cost shows in the parent's total.
    const usage = say.usage({ input: 1_000 })
    if (child)
      return seen.results.length === 0
        ? [say.toolCall("echo", { text: child[1]! }), usage]
        : [say.text(`${child[1]} found`), usage]
    return parent(seen)
  }
}

const taskCall = (subject: string, extra: object = {}) =>
  say.toolCall("task", {
    description: `Find ${subject}`,
    prompt: `find ${subject}`,
    subagent_type: "general",
    ...extra,
  })

const toolParts = (messages: MessageV2.WithParts[]) =>
  messages
    .flatMap((message) => message.parts)
    .filter((part): part is MessageV2.ToolPart => part.type === "tool")

describe("the task tool", () => {
  it("runs two children in parallel, each with a tool, and the parent gets both results", async () => {
    const routed = createTestRuntime({
      tools: [echo],
      task: true,
      turns: Array.from({ length: 8 }, () =>
        responder((seen) =>
          seen.results.length === 0
            ? [taskCall("alpha"), taskCall("beta")]
            : [say.text(`summary of ${seen.results.length}`)],
        ),
      ),
    })
    const parent = await routed.runtime.session.create({ title: "parent" })
    const answer = await routed.runtime.session.prompt({
      sessionID: parent.id,
      parts: [{ type: "text", text: "research both" }],
    })
    expect(answer.parts.find((part) => part.type === "text")).toMatchObject({ text: "summary of 2" })
    const children = await routed.runtime.session.children(parent.id)
    expect(children.map((child) => child.title).sort()).toEqual([
      "Find alpha (@general sub-agent)",
      "Find beta (@general sub-agent)",
    ])
    const tasks = toolParts(await routed.runtime.session.messages(parent.id))
    expect(tasks.map((part) => part.state.status)).toEqual(["completed", "completed"])
    for (const part of tasks) {
      const state = part.state as Extract<MessageV2.ToolState, { status: "completed" }>
      const child = children.find((candidate) => candidate.id === state.metadata.sessionID)!
      expect(state.output).toContain(`task_id: ${child.id}`)
      expect(state.output).toContain(
        `<task_result>\n${child.title.startsWith("Find alpha") ? "alpha" : "beta"} found`,
      )
      expect(
        toolParts(await routed.runtime.session.messages(child.id)).map((p) => [p.tool, p.state.status]),
      ).toEqual([["echo", "completed"]])
    }
    // Both children's calls were made while neither had finished: they ran side by side.
    const childCalls = routed.model.calls.map(read).filter((seen) => seen.first.startsWith("find "))
    expect(childCalls.slice(0, 2).every((seen) => seen.results.length === 0)).toBe(true)
    // Sub-agents get neither task nor question.
    for (const seen of childCalls) expect(seen.tools).not.toContain("task")
    for (const seen of childCalls) expect(seen.tools).not.toContain("question")

    const usage = await routed.runtime.session.usage(parent.id)
    const childCost = children.reduce((sum, child) => sum + child.cost, 0)
    expect(usage.cost).toBe((await routed.runtime.session.get(parent.id)).cost)
    expect(usage.total.cost).toBeCloseTo(usage.cost + childCost, 10)
    expect(usage.total.cost).toBeGreaterThan(usage.cost)
  })

  it("resumes a child by task_id: the same session, with its history", async () => {
    let first: string | undefined
    const { runtime } = createTestRuntime({
      tools: [echo],
      task: true,
      turns: Array.from({ length: 10 }, () =>
        responder((seen) => {
          if (seen.results.length === 0) return [taskCall("gamma")]
          if (seen.texts.length === 1) return [say.text("first done")]
          if (seen.results.length === 1) return [taskCall("gamma", { task_id: first })]
          return [say.text("second done")]
        }),
      ),
    })
    const parent = await runtime.session.create({ title: "parent" })
    await runtime.session.prompt({ sessionID: parent.id, parts: [{ type: "text", text: "one" }] })
    const [child] = await runtime.session.children(parent.id)
    first = child!.id
    await runtime.session.prompt({ sessionID: parent.id, parts: [{ type: "text", text: "again" }] })
    expect((await runtime.session.children(parent.id)).map((session) => session.id)).toEqual([first])
    const childMessages = await runtime.session.messages(first)
    expect(childMessages.filter((message) => message.info.role === "user")).toHaveLength(2)
    const [, second] = toolParts(await runtime.session.messages(parent.id))
    expect(second?.state).toMatchObject({ status: "completed", metadata: { sessionID: first } })
  })

  it("refuses a task_id that is not a child of the calling session", async () => {
    let strangerID = ""
    const { runtime } = createTestRuntime({
      task: true,
      turns: [() => [taskCall("iota", { task_id: strangerID })], [say.text("ok")]],
    })
    const parent = await runtime.session.create({ title: "parent" })
    strangerID = (await runtime.session.create({ title: "not a child" })).id
    await runtime.session.prompt({ sessionID: parent.id, parts: [{ type: "text", text: "go" }] })
    const [task] = toolParts(await runtime.session.messages(parent.id))
    expect(task?.state.status === "error" && task.state.error).toContain("is not a task of this session")
    expect(await runtime.session.children(parent.id)).toEqual([])
    expect(await runtime.session.messages(strangerID)).toEqual([])
  })

  it("cancels the running child when the parent is cancelled", async () => {
    let started!: () => void
    const childRunning = new Promise<void>((resolve) => {
      started = resolve
    })
    const hang = Tool.define("hang", {
      description: "Waits until aborted",
      parameters: z.object({}),
      async execute(_, context) {
        started()
        await new Promise((_, reject) =>
          context.abort.addEventListener("abort", () => reject(context.abort.reason)),
        )
        return { title: "", output: "", metadata: {} }
      },
    })
    const { runtime } = createTestRuntime({
      tools: [hang],
      task: true,
      turns: [[taskCall("epsilon")], [say.toolCall("hang", {})]],
    })
    const parent = await runtime.session.create({ title: "parent" })
    const prompt = runtime.session.prompt({ sessionID: parent.id, parts: [{ type: "text", text: "go" }] })
    await childRunning
    const [child] = await runtime.session.children(parent.id)
    expect(runtime.session.status(child!.id).type).toBe("busy")
    runtime.session.cancel(parent.id)
    const answer = await prompt
    expect(answer.info.role === "assistant" && answer.info.error?.name).toBe("AbortedError")
    expect(runtime.session.status(child!.id).type).toBe("idle")
    const childAnswer = (await runtime.session.messages(child!.id)).at(-1)!
    expect(childAnswer.info.role === "assistant" && childAnswer.info.error?.name).toBe("AbortedError")
    expect(toolParts([childAnswer])[0]?.state).toMatchObject({
      status: "error",
      metadata: { interrupted: true },
    })
  })

  it("a child's failure is the task's error; the parent goes on", async () => {
    const { runtime } = createTestRuntime({
      tools: [echo],
      task: true,
      retry: { maxAttempts: 0 },
      turns: [
        [taskCall("zeta")],
        { throws: new Error("the sub-agent's provider broke") },
        (call) => [say.text(`recovered after: ${read(call).results.join(" ")}`)],
      ],
    })
    const parent = await runtime.session.create({ title: "parent" })
    const answer = await runtime.session.prompt({
      sessionID: parent.id,
      parts: [{ type: "text", text: "go" }],
    })
    const [task] = toolParts(await runtime.session.messages(parent.id))
    expect(task?.state.status).toBe("error")
    expect(task?.state.status === "error" && task.state.error).toContain("the sub-agent's provider broke")
    expect(answer.info.role === "assistant" && answer.info.error).toBeFalsy()
    expect(answer.parts.find((part) => part.type === "text")).toMatchObject({
      text: expect.stringContaining("recovered after"),
    })
  })
})

describe("a child's permissions", () => {
  // The sub-agent "helper" allows echo outright; each level above it denies it.
  const helper = {
    helper: {
      mode: "subagent" as const,
      description: "Helps",
      permission: Permission.fromConfig({ "*": "allow", echo: "allow" }),
    },
  }
  const delegate = (options: Parameters<typeof createTestRuntime>[0]) =>
    createTestRuntime({
      tools: [echo],
      agents: helper,
      ...options,
      turns: Array.from({ length: 6 }, () =>
        responder((seen) =>
          seen.results.length === 0
            ? [say.toolCall("task", { description: "Find eta", prompt: "find eta", subagent_type: "helper" })]
            : [say.text("done")],
        ),
      ),
    })

  it.each([
    ["the runtime's rules", { permission: Permission.fromConfig({ echo: "deny" }) }, undefined],
    [
      "the parent's agent",
      {
        agents: {
          ...helper,
          build: { permission: Permission.fromConfig({ "*": "allow", echo: { "*": "allow", eta: "deny" } }) },
        },
      },
      undefined,
    ],
    ["the parent's session", {}, Permission.fromConfig({ echo: "deny" })],
  ])("a deny in %s holds in the child whose own agent allows it", async (_, options, sessionRules) => {
    echoed.length = 0
    const { runtime } = delegate(options)
    const parent = await runtime.session.create({
      title: "parent",
      ...(sessionRules ? { permission: sessionRules } : {}),
    })
    await runtime.session.prompt({ sessionID: parent.id, parts: [{ type: "text", text: "go" }] })
    const [child] = await runtime.session.children(parent.id)
    const parts = toolParts(await runtime.session.messages(child!.id))
    expect(parts.map((part) => part.state.status)).toEqual(["error"])
    expect(echoed).toEqual([])
  })

  it("lets a sub-agent start tasks only when its agent allows it", async () => {
    const { runtime, model } = createTestRuntime({
      agents: {
        nested: { mode: "subagent", permission: Permission.fromConfig({ "*": "allow", task: "allow" }) },
      },
      turns: [
        [say.toolCall("task", { description: "Nest", prompt: "nested work", subagent_type: "nested" })],
        [say.text("nested done")],
        [say.text("parent done")],
      ],
    })
    const parent = await runtime.session.create({ title: "parent" })
    await runtime.session.prompt({ sessionID: parent.id, parts: [{ type: "text", text: "go" }] })
    expect(read(model.calls[1]!).tools).toContain("task")
  })
})

describe("subtask parts", () => {
  it("runs the subtask as a task call in the parent's turn, then the parent continues", async () => {
    const { runtime } = createTestRuntime({
      tools: [echo],
      turns: Array.from({ length: 6 }, () =>
        responder((seen) => [say.text(`parent saw ${seen.results.length} result(s)`)]),
      ),
    })
    const parent = await runtime.session.create({ title: "parent" })
    const answer = await runtime.session.prompt({
      sessionID: parent.id,
      parts: [{ type: "subtask", prompt: "find theta", description: "Find theta", agent: "general" }],
    })
    expect(answer.parts.find((part) => part.type === "text")).toMatchObject({
      text: "parent saw 1 result(s)",
    })
    const messages = await runtime.session.messages(parent.id)
    const subtask = messages[0]!.parts[0]!
    const [task] = toolParts(messages)
    expect(task).toMatchObject({ tool: "task", callID: subtask.id, state: { status: "completed" } })
    expect(task?.state.status === "completed" && task.state.output).toContain("theta found")
    expect(messages.map((message) => message.info.role)).toEqual(["user", "assistant", "assistant"])
  })

  it("refuses a subtask or task for an agent that is not a sub-agent", async () => {
    const { runtime } = createTestRuntime({ turns: [] })
    const parent = await runtime.session.create({ title: "parent" })
    await expect(
      runtime.session.prompt({
        sessionID: parent.id,
        parts: [{ type: "subtask", prompt: "x", description: "x", agent: "build" }],
      }),
    ).rejects.toMatchObject({ name: "NotASubagentError" })
  })
})
