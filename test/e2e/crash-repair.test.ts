// Nothing lost (ARCHITECTURE principle 7): what a process that stopped mid-turn left in storage
// is repaired by the next runtime, and a permission or question it was waiting for resumes.
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { z } from "zod"
import { type MessageV2, type Runtime, type StorageWrite, Tool } from "../../src/index.js"
import { SqliteStorage } from "../../src/storage/sqlite/index.js"
import { createTestRuntime, say, type Turn, testModelInfo } from "../../src/testing/index.js"

let directory: string
let file: string

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), "agentloop-crash-"))
  file = join(directory, "agentloop.db")
})

afterEach(() => {
  rmSync(directory, { recursive: true, force: true })
})

const ref = { providerID: testModelInfo.providerID, modelID: testModelInfo.id }
const tools = (messages: MessageV2.WithParts[]) =>
  messages.flatMap((message) =>
    message.parts.filter((part): part is MessageV2.ToolPart => part.type === "tool"),
  )

/** Writes what a process killed in the middle of a streaming, tool-using step leaves behind. */
async function leaveHalfATurn(runtime: Runtime, sessionID: string) {
  const userID = await runtime.session.newMessageID(sessionID)
  const part = (messageID: string) => ({ id: runtime.session.newPartID(messageID), sessionID, messageID })
  await runtime.session.saveMessage({
    info: { id: userID, sessionID, role: "user", time: { created: Date.now() }, agent: "build", model: ref },
    parts: [{ ...part(userID), type: "text", text: "do two things" }],
  })
  const id = await runtime.session.newMessageID(sessionID)
  const start = Date.now()
  await runtime.session.saveMessage({
    info: {
      id,
      sessionID,
      role: "assistant",
      time: { created: start },
      parentID: userID,
      agent: "build",
      ...ref,
      path: { cwd: directory, root: directory },
      cost: 0,
      tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
    },
    parts: [
      { ...part(id), type: "reasoning", text: "", time: { start } },
      { ...part(id), type: "text", text: "Checkpointed half", time: { start } },
      {
        ...part(id),
        type: "tool",
        callID: "call_1",
        tool: "echo",
        state: { status: "running", input: {}, time: { start } },
      },
      {
        ...part(id),
        type: "tool",
        callID: "call_2",
        tool: "echo",
        state: { status: "pending", input: {}, raw: "{" },
      },
    ],
  })
  return id
}

describe("a runtime on the storage of a process that stopped mid-turn", () => {
  it("repairs the unfinished turn when the session is first read, and the session goes on", async () => {
    const first = createTestRuntime({ storage: new SqliteStorage(file) }).runtime
    const session = await first.session.create()
    const assistantID = await leaveHalfATurn(first, session.id)
    await first.close()

    const { runtime } = createTestRuntime({
      storage: new SqliteStorage(file),
      turns: [[say.text("Fresh answer")]],
    })
    const messages = await runtime.session.messages(session.id)
    const assistant = messages.find((message) => message.info.id === assistantID)!
    expect(assistant.info).toMatchObject({
      role: "assistant",
      error: { name: "AbortedError", data: { message: expect.stringMatching(/process .* stopped/) } },
      time: { completed: expect.any(Number) },
    })
    // The reasoning part never reached a checkpoint: it stays, empty and closed, since clients
    // were told of it.
    expect(assistant.parts.map((part) => part.type)).toEqual(["reasoning", "text", "tool", "tool"])
    expect(assistant.parts[0]).toMatchObject({ text: "", time: { end: expect.any(Number) } })
    expect(assistant.parts[1]).toMatchObject({ text: "Checkpointed half", time: { end: expect.any(Number) } })
    for (const tool of tools([assistant]))
      expect(tool.state).toMatchObject({ status: "error", metadata: { interrupted: true } })

    const reopened = new SqliteStorage(file)
    expect((await reopened.getMessage(session.id, assistantID))?.info).toEqual(assistant.info)
    await reopened.close()

    const answer = await runtime.session.prompt({
      sessionID: session.id,
      parts: [{ type: "text", text: "again" }],
    })
    expect(answer.parts.some((part) => part.type === "text" && part.text === "Fresh answer")).toBe(true)
    await runtime.close()
  })

  it("repairs before a run reads the history, so the model sees a clean one", async () => {
    const first = createTestRuntime({ storage: new SqliteStorage(file) }).runtime
    const session = await first.session.create()
    await leaveHalfATurn(first, session.id)
    await first.close()

    const { runtime, model } = createTestRuntime({
      storage: new SqliteStorage(file),
      turns: [[say.text("ok")]],
    })
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "go on" }] })
    const sent = JSON.stringify(model.calls[0]?.prompt)
    expect(sent).toContain("Checkpointed half")
    expect(sent).toContain("interrupted")
    await runtime.close()
  })
})

describe("loop() after a process stopped mid-turn", () => {
  it("continues the cut turn for the same user message, after repair recorded the cut", async () => {
    const first = createTestRuntime({ storage: new SqliteStorage(file) }).runtime
    const session = await first.session.create()
    const cutID = await leaveHalfATurn(first, session.id)
    await first.close()

    const { runtime, model } = createTestRuntime({
      storage: new SqliteStorage(file),
      turns: [[say.text("Carried on")]],
    })
    // A reader first: it sees the truth (the cut step aborted, its tools interrupted).
    const read = await runtime.session.messages(session.id)
    expect(read.at(-1)?.info).toMatchObject({ id: cutID, error: { name: "AbortedError" } })

    const answer = await runtime.session.loop(session.id)
    expect(model.calls).toHaveLength(1)
    expect(answer.parts.some((part) => part.type === "text" && part.text === "Carried on")).toBe(true)
    const user = read.findLast((message) => message.info.role === "user")!
    expect(answer.info).toMatchObject({ role: "assistant", parentID: user.info.id })
    expect(answer.info.role === "assistant" && answer.info.error).toBeUndefined()
    // The model is told what was cut: the checkpointed text and the interrupted tools.
    const sent = JSON.stringify(model.calls[0]?.prompt)
    expect(sent).toContain("Checkpointed half")
    expect(sent).toContain("interrupted")
    // The cut step stays as repair recorded it.
    const cut = (await runtime.session.messages(session.id)).find((message) => message.info.id === cutID)
    expect(cut?.info).toMatchObject({ error: { name: "AbortedError" } })
    // Nothing goes on by itself: a second loop() finds the turn answered.
    await runtime.session.loop(session.id)
    expect(model.calls).toHaveLength(1)
    await runtime.close()
  })

  it("does not continue a turn the user cancelled", async () => {
    let called!: () => void
    const inCall = new Promise<void>((resolve) => {
      called = resolve
    })
    const { runtime, model } = createTestRuntime({
      storage: new SqliteStorage(file),
      turns: [
        () => {
          called()
          return [say.delay(5_000), say.text("never")]
        },
        [say.text("unexpected")],
      ],
    })
    const session = await runtime.session.create()
    const prompt = runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "hi" }] })
    await inCall
    await runtime.session.cancel(session.id)
    const cancelled = await prompt
    expect(cancelled.info).toMatchObject({ error: { name: "AbortedError" } })
    const again = await runtime.session.loop(session.id)
    expect(again.info.id).toBe(cancelled.info.id)
    expect(model.calls).toHaveLength(1)
    await runtime.close()
  })
})

const guarded = (ran: string[]) =>
  Tool.define("guarded", {
    description: "Writes a note, after asking",
    parameters: z.object({ note: z.string() }),
    async execute({ note }, context) {
      await context.ask({ permission: "guarded", patterns: [note] })
      ran.push(note)
      return { title: note, output: `wrote ${note}`, metadata: {} }
    },
  })

const askGuarded = [{ permission: "guarded", pattern: "*", action: "ask" as const }]

/**
 * A runtime whose turn waits for `asks` permission requests or questions, then "dies": its
 * storage stops writing, as a killed process stops. `bury` ends what is left of it in memory.
 */
async function abandonedWhileAsking(input: {
  turns: Turn[]
  event: "permission.asked" | "question.asked"
  asks?: number
  tools?: ReturnType<typeof guarded>[]
}) {
  // A stopped process's leases have expired by the time the next runtime looks, and its
  // coordinator hears nothing: this one, which only pretends to die, holds none.
  const storage = new SqliteStorage(file, { coordinator: false })
  const state = { dead: false }
  const write = storage.write.bind(storage)
  storage.write = async (batch: readonly StorageWrite[]) => {
    if (state.dead) throw new Error("the process is gone")
    return write(batch)
  }
  const first = createTestRuntime({
    storage,
    tools: input.tools ?? [],
    permission: askGuarded,
    turns: input.turns,
    question: true,
  })
  let asked = 0
  const waiting = new Promise<void>((resolve) =>
    first.runtime.events.on(input.event, () => {
      if (++asked === (input.asks ?? 1)) resolve()
    }),
  )
  const session = await first.runtime.session.create()
  const abandoned = first.runtime.session.prompt({
    sessionID: session.id,
    parts: [{ type: "text", text: "go" }],
  })
  await waiting
  state.dead = true
  return {
    sessionID: session.id,
    async bury() {
      await first.runtime.close().catch(() => undefined)
      await abandoned.catch(() => undefined)
    },
  }
}

function secondRuntime(ran: string[], turns: Turn[]) {
  return createTestRuntime({
    storage: new SqliteStorage(file),
    tools: [guarded(ran)],
    permission: askGuarded,
    turns,
  })
}

describe("a permission request left waiting by a process that stopped", () => {
  it("resumes the turn when a new runtime on the same file gets the reply", async () => {
    const ran: string[] = []
    const first = await abandonedWhileAsking({
      tools: [guarded(ran)],
      event: "permission.asked",
      turns: [[say.text("Writing it."), say.toolCall("guarded", { note: "hello" })]],
    })
    const session = { id: first.sessionID }

    const { runtime, model } = secondRuntime(ran, [[say.text("Wrote hello.")]])
    const before = await runtime.session.messages(session.id)
    expect(tools(before)[0]?.state.status).toBe("running")
    const [request] = await runtime.permission.list()
    expect(request).toMatchObject({ sessionID: session.id, permission: "guarded", patterns: ["hello"] })

    await runtime.permission.reply({ requestID: request!.id, reply: "once" })
    const answer = await runtime.session.loop(session.id)
    expect(ran).toEqual(["hello"])
    expect(answer.parts.some((part) => part.type === "text" && part.text === "Wrote hello.")).toBe(true)
    expect(JSON.stringify(model.calls[0]?.prompt)).toContain("wrote hello")
    const after = await runtime.session.messages(session.id)
    expect(tools(after)[0]?.state).toMatchObject({ status: "completed", output: "wrote hello" })
    expect(after.every((message) => message.info.role !== "assistant" || message.info.time.completed)).toBe(
      true,
    )
    expect(await runtime.permission.list()).toEqual([])
    await runtime.close()
    await first.bury()
  })

  it("runs each of two waiting calls of one step on its own reply, then goes on once", async () => {
    const ran: string[] = []
    const first = await abandonedWhileAsking({
      tools: [guarded(ran)],
      asks: 2,
      event: "permission.asked",
      turns: [[say.toolCall("guarded", { note: "one" }), say.toolCall("guarded", { note: "two" })]],
    })
    const session = { id: first.sessionID }

    const { runtime, model } = secondRuntime(ran, [[say.text("Wrote both.")]])
    const requests = await runtime.permission.list()
    expect(requests.map((request) => request.patterns)).toEqual([["one"], ["two"]])
    await runtime.permission.reply({ requestID: requests[0]!.id, reply: "once" })
    await runtime.session.loop(session.id)
    expect(ran).toEqual(["one"])
    expect(model.calls).toHaveLength(0)
    // A bare loop() while a call still waits keeps waiting; it does not drop the request.
    await runtime.session.loop(session.id)
    expect((await runtime.permission.list()).map((request) => request.id)).toEqual([requests[1]!.id])
    await runtime.permission.reply({ requestID: requests[1]!.id, reply: "once" })
    const answer = await runtime.session.loop(session.id)

    expect(ran).toEqual(["one", "two"])
    expect(model.calls).toHaveLength(1)
    expect(answer.parts.some((part) => part.type === "text" && part.text === "Wrote both.")).toBe(true)
    const states = tools(await runtime.session.messages(session.id)).map((part) => part.state.status)
    expect(states).toEqual(["completed", "completed"])
    await runtime.close()
    await first.bury()
  })

  it("ends the turn when the reply is a rejection, as it would have in the first process", async () => {
    const ran: string[] = []
    const first = await abandonedWhileAsking({
      tools: [guarded(ran)],
      event: "permission.asked",
      turns: [[say.toolCall("guarded", { note: "hello" })]],
    })
    const session = { id: first.sessionID }

    const { runtime, model } = secondRuntime(ran, [])
    const [request] = await runtime.permission.list()
    await runtime.permission.reply({ requestID: request!.id, reply: "reject" })
    await runtime.session.loop(session.id)
    expect(ran).toEqual([])
    expect(model.calls).toHaveLength(0)
    const part = tools(await runtime.session.messages(session.id))[0]
    expect(part?.state).toMatchObject({ status: "error", error: expect.stringMatching(/rejected/i) })
    await runtime.close()
    await first.bury()
  })

  it("resumes after the asking process was killed with SIGKILL", async () => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", fileURLToPath(new URL("./children/ask-and-wait.ts", import.meta.url)), file],
      { stdio: ["ignore", "pipe", "inherit"] },
    )
    const lines = createInterface({ input: child.stdout })
    const line = await new Promise<string>((resolve, reject) => {
      lines.on("line", (text) => text.startsWith("asked ") && resolve(text))
      child.on("exit", (code) => reject(new Error(`child exited (${code}) before asking`)))
    })
    const exited = new Promise((resolve) => child.on("exit", resolve))
    child.kill("SIGKILL")
    await exited
    const [, sessionID, requestID] = line.split(" ")

    const ran: string[] = []
    const { runtime } = secondRuntime(ran, [[say.text("Wrote hello.")]])
    expect((await runtime.permission.list()).map((request) => request.id)).toEqual([requestID])
    await runtime.permission.reply({ requestID: requestID!, reply: "once" })
    const answer = await runtime.session.loop(sessionID!)
    expect(ran).toEqual(["hello"])
    expect(answer.info.role === "assistant" && answer.info.error).toBeUndefined()
    expect(answer.parts.some((part) => part.type === "text" && part.text === "Wrote hello.")).toBe(true)
    await runtime.close()
  }, 20_000)
})

describe("a question left waiting by a process that stopped", () => {
  it("resumes the turn with the answers given to a new runtime", async () => {
    const first = await abandonedWhileAsking({
      event: "question.asked",
      turns: [
        [
          say.toolCall("question", {
            questions: [{ question: "Which?", header: "Pick", options: [{ label: "A", description: "a" }] }],
          }),
        ],
      ],
    })
    const session = { id: first.sessionID }

    const { runtime, model } = createTestRuntime({
      storage: new SqliteStorage(file),
      turns: [[say.text("You chose A.")]],
      question: true,
    })
    const [request] = await runtime.question.list()
    await runtime.question.reply({ requestID: request!.id, answers: [["A"]] })
    const answer = await runtime.session.loop(session.id)
    expect(answer.parts.some((part) => part.type === "text" && part.text === "You chose A.")).toBe(true)
    expect(JSON.stringify(model.calls[0]?.prompt)).toContain("Which?")
    const part = tools(await runtime.session.messages(session.id))[0]
    expect(part?.state).toMatchObject({ status: "completed", metadata: { answers: [["A"]] } })
    await runtime.close()
    await first.bury()
  })

  it("answers a waiting request 'no' when a new prompt moves the session on instead", async () => {
    const first = await abandonedWhileAsking({
      event: "question.asked",
      turns: [
        [say.toolCall("question", { questions: [{ question: "Which?", header: "Pick", options: [] }] })],
      ],
    })
    const session = { id: first.sessionID }

    const { runtime } = createTestRuntime({
      storage: new SqliteStorage(file),
      turns: [[say.text("Never mind.")]],
      question: true,
    })
    const rejected: string[] = []
    runtime.events.on("question.rejected", (event) => {
      rejected.push(event.properties.requestID)
    })
    const [request] = await runtime.question.list()
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "forget it" }] })
    expect(rejected).toEqual([request!.id])
    expect(await runtime.question.list()).toEqual([])
    const part = tools(await runtime.session.messages(session.id))[0]
    expect(part?.state).toMatchObject({ status: "error", metadata: { interrupted: true } })
    await runtime.close()
    await first.bury()
  })
})
