import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { Agent } from "../../src/agent/index.js"
import {
  Identifier,
  InvalidInputError,
  type MessageV2,
  NotFoundError,
  RuntimeClosedError,
  Session,
  ShellUnavailableError,
  Tool,
} from "../../src/index.js"
import { createTestRuntime, say } from "../../src/testing/index.js"
import { codingTools } from "../../src/tools/index.js"
import { bashRunning, shellSetup } from "./helpers.js"

const SYNTHETIC = "The following tool was executed by the user"
const { setup, makeDirectory } = shellSetup("agentloop-shell-")

function toolPart(message: MessageV2.WithParts): MessageV2.ToolPart {
  const [part] = message.parts
  if (part?.type !== "tool") throw new Error(`expected a tool part, got ${part?.type}`)
  return part
}

describe("runtime.session.shell", () => {
  it("records the command as the user's: a user message and an answer with a completed bash part", async () => {
    const { runtime, model, directory, session } = await setup()

    const answer = await runtime.session.shell({
      sessionID: session.id,
      command: "echo hello from the shell",
    })

    const [user, stored] = await runtime.session.messages(session.id)
    expect(user?.info).toMatchObject({
      role: "user",
      agent: "build",
      model: { providerID: "scripted", modelID: "scripted-model" },
    })
    expect(user?.parts).toMatchObject([{ type: "text", text: SYNTHETIC, synthetic: true }])
    expect(answer.info).toMatchObject({
      role: "assistant",
      parentID: user?.info.id,
      agent: "build",
      providerID: "scripted",
      modelID: "scripted-model",
      path: { cwd: directory, root: directory },
      cost: 0,
      tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
    })
    expect(answer.info.role === "assistant" && answer.info.time.completed).toBeTypeOf("number")
    const part = toolPart(answer)
    expect(part.tool).toBe("bash")
    // A ULID, as OpenCode's shell call IDs are.
    expect(part.callID).toMatch(/^[0-7][0-9A-HJKMNP-TV-Z]{25}$/)
    expect(part.state).toMatchObject({ status: "completed", input: { command: "echo hello from the shell" } })
    expect(part.state.status === "completed" && part.state.output).toContain("hello from the shell")
    expect(stored).toEqual(answer)
    expect(model.calls).toHaveLength(0)
  })

  it("publishes both messages, and the bash part running then completed", async () => {
    const { runtime, events, session } = await setup()
    events.length = 0

    const answer = await runtime.session.shell({ sessionID: session.id, command: "echo hi" })

    const updated = events.flatMap((event) =>
      event.type === "message.updated" ? [event.properties.info.role] : [],
    )
    expect(updated[0]).toBe("user")
    expect(updated).toContain("assistant")
    const states = events.flatMap((event) =>
      event.type === "message.part.updated" && event.properties.part.type === "tool"
        ? [event.properties.part.state.status]
        : [],
    )
    expect(states[0]).toBe("running")
    expect(states.at(-1)).toBe("completed")
    const last = events.findLast((event) => event.type === "message.updated")
    expect(last?.type === "message.updated" && last.properties.info).toEqual(answer.info)
  })

  it("records a failing command as the bash tool reports it", async () => {
    const { runtime, session } = await setup()

    const answer = await runtime.session.shell({ sessionID: session.id, command: "echo oops; exit 1" })

    const { state } = toolPart(answer)
    expect(state.status).toBe("completed")
    if (state.status !== "completed") return
    expect(state.output).toContain("oops")
    expect(state.output).toContain("[Exit code: 1]")
    expect(state.metadata).toMatchObject({ exit: 1 })
  })

  it("uses the agent, model and user message ID given", async () => {
    const { runtime, session } = await setup({ agents: Agent.codingAgents() })
    const model = { providerID: "scripted", modelID: "scripted-small" }
    const messageID = await runtime.session.newMessageID(session.id)

    const answer = await runtime.session.shell({
      sessionID: session.id,
      command: "true",
      agent: "plan",
      model,
      messageID,
    })

    const [user] = await runtime.session.messages(session.id)
    expect(user?.info).toMatchObject({ id: messageID, agent: "plan", model })
    expect(answer.info).toMatchObject({ parentID: messageID, agent: "plan", modelID: "scripted-small" })
  })

  it("refuses with Session.BusyError while a prompt runs, and stores nothing", async () => {
    let release!: () => void
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    let started!: () => void
    const running = new Promise<void>((resolve) => {
      started = resolve
    })
    const wait = Tool.define("wait", {
      description: "Waits",
      parameters: z.object({}),
      async execute() {
        started()
        await gate
        return "ok"
      },
    })
    const directory = await makeDirectory()
    const { runtime } = createTestRuntime({
      directory,
      tools: [...codingTools({ directory }), wait],
      turns: [[say.toolCall("wait", {})], [say.text("done")]],
    })
    const session = await runtime.session.create({})
    const prompt = runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "wait" }] })
    await running
    const before = await runtime.session.messages(session.id)

    const refused = await runtime.session.shell({ sessionID: session.id, command: "echo no" }).catch((e) => e)

    expect(Session.BusyError.isInstance(refused)).toBe(true)
    expect(await runtime.session.messages(session.id)).toEqual(before)
    release()
    await prompt
  })

  it("keeps the session busy while the command runs, and cancel ends it", async () => {
    const { runtime, session } = await setup()
    const started = bashRunning(runtime)
    const shell = runtime.session.shell({ sessionID: session.id, command: "sleep 30" })
    await started

    expect(runtime.session.status(session.id)).toEqual({ type: "busy" })
    const second = await runtime.session.shell({ sessionID: session.id, command: "echo no" }).catch((e) => e)
    expect(Session.BusyError.isInstance(second)).toBe(true)
    const [user] = await runtime.session.messages(session.id)
    const revert = await runtime.session
      .revert({ sessionID: session.id, messageID: user!.info.id })
      .catch((e) => e)
    expect(Session.BusyError.isInstance(revert)).toBe(true)
    const cancelledAt = Date.now()
    await runtime.session.cancel(session.id)
    const answer = await shell

    expect(Date.now() - cancelledAt).toBeLessThan(5_000)
    expect(toolPart(answer).state).toMatchObject({ status: "completed", metadata: { aborted: true } })
    expect(runtime.session.status(session.id)).toEqual({ type: "idle" })
  }, 10_000)

  it("ends the command when the session is removed, before its rows go", async () => {
    const { runtime, session } = await setup()
    const started = bashRunning(runtime)
    const shell = runtime.session.shell({ sessionID: session.id, command: "sleep 30" })
    await started

    await runtime.session.remove(session.id)

    expect(toolPart(await shell).state).toMatchObject({ status: "completed", metadata: { aborted: true } })
    expect(NotFoundError.isInstance(await runtime.session.messages(session.id).catch((e) => e))).toBe(true)
  }, 10_000)

  it("ends the command when the runtime closes", async () => {
    const { runtime, session } = await setup()
    const started = bashRunning(runtime)
    const shell = runtime.session.shell({ sessionID: session.id, command: "sleep 30" })
    await started

    await runtime.close()

    const error = await shell.catch((e) => e)
    expect(RuntimeClosedError.isInstance(error)).toBe(true)
  }, 10_000)

  it("lets a prompt sent while the command runs wait for it, then answer", async () => {
    const { runtime, directory, session, model } = await setup({ turns: [[say.text("seen")]] })
    const started = bashRunning(runtime)
    const command = 'while [ ! -f go ]; do sleep 0.02; done; echo "$((6 * 7))-released"'
    const shell = runtime.session.shell({ sessionID: session.id, command })
    await started
    const prompt = runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "and?" }] })

    await writeFile(join(directory, "go"), "")
    const [answer, result] = await Promise.all([shell, prompt])

    expect(toolPart(answer).state).toMatchObject({ status: "completed" })
    const stored = (await runtime.session.messages(session.id)).find((m) => m.info.id === answer.info.id)
    expect(stored).toEqual(answer)
    expect(result.text).toBe("seen")
    // The model was called once the command had ended, and read its output.
    expect(model.calls).toHaveLength(1)
    expect(JSON.stringify(model.calls[0]?.prompt)).toContain("42-released")
  }, 10_000)

  it("throws ShellUnavailableError when the runtime has no bash tool", async () => {
    const { runtime } = createTestRuntime()
    const session = await runtime.session.create({})

    const error = await runtime.session.shell({ sessionID: session.id, command: "ls" }).catch((e) => e)

    expect(ShellUnavailableError.isInstance(error)).toBe(true)
    expect(error.message).toContain("codingPreset")
    expect(await runtime.session.messages(session.id)).toEqual([])
  })

  it("throws NotFoundError for an unknown session", async () => {
    const { runtime } = await setup()
    const sessionID = Identifier.descending("session")

    const error = await runtime.session.shell({ sessionID, command: "ls" }).catch((e) => e)

    expect(NotFoundError.isInstance(error)).toBe(true)
  })

  it("checks its input", async () => {
    const { runtime, session } = await setup()

    const empty = await runtime.session.shell({ sessionID: session.id, command: "" }).catch((e) => e)
    const extra = await runtime.session
      .shell({ sessionID: session.id, command: "ls", timeout: 5 } as never)
      .catch((e) => e)
    const agent = await runtime.session
      .shell({ sessionID: session.id, command: "ls", agent: "nobody" })
      .catch((e) => e)

    expect(InvalidInputError.isInstance(empty)).toBe(true)
    expect(InvalidInputError.isInstance(extra)).toBe(true)
    expect(agent.name).toBe("UnknownAgentError")
    expect(await runtime.session.messages(session.id)).toEqual([])
  })
})
