import { describe, expect, it } from "vitest"
import { z } from "zod"
import {
  type Event,
  type MessageV2,
  NotFoundError,
  Session,
  type Snapshot,
  SnapshotUnavailableError,
  Tool,
} from "../../src/index.js"
import { createTestRuntime, say, type Turn } from "../../src/testing/index.js"
import { fakeSnapshot } from "../snapshot/fake-snapshot.js"

type SetupOptions = {
  /** null: no Snapshot; a function: the fake Snapshot as it returns it. */
  snapshot?: null | ((fake: Snapshot) => Snapshot)
  tools?: Tool.Info[]
}

function setup(turns: Turn[], options: SetupOptions = {}) {
  const fake = fakeSnapshot()
  const put = Tool.define("put", {
    description: "Writes a file",
    parameters: z.object({ file: z.string(), text: z.string().optional() }),
    async execute({ file, text }) {
      if (text === undefined) fake.files.delete(file)
      else fake.files.set(file, text)
      return { title: file, output: "done", metadata: {} }
    },
  })
  const snapshot =
    options.snapshot === null ? undefined : (options.snapshot?.(fake.snapshot) ?? fake.snapshot)
  const { runtime, model } = createTestRuntime({
    turns,
    tools: [put, ...(options.tools ?? [])],
    ...(snapshot ? { snapshot } : {}),
  })
  const events: Event[] = []
  runtime.events.onAny((event) => {
    events.push(event)
  })
  return { runtime, model, fake, events }
}

/** Three turns: a=1; a=2 and b created; a=3 and b deleted. */
const threeTurns: Turn[] = [
  [say.toolCall("put", { file: "a", text: "1" })],
  [say.text("one")],
  [say.toolCall("put", { file: "a", text: "2" }), say.toolCall("put", { file: "b", text: "x\ny" })],
  [say.text("two")],
  [say.toolCall("put", { file: "a", text: "3" }), say.toolCall("put", { file: "b" })],
  [say.text("three")],
]

async function runThree(extra: Turn[] = [], options: Parameters<typeof setup>[1] = {}) {
  const context = setup([...threeTurns, ...extra], options)
  const session = await context.runtime.session.create({ title: "t" })
  const ask = (text: string) =>
    context.runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text }] })
  for (const text of ["first", "second", "third"]) await ask(text)
  const messages = await context.runtime.session.messages(session.id)
  const users = messages.filter((message) => message.info.role === "user")
  return { ...context, session, ask, messages, users }
}

const files = (map: Map<string, string>) => Object.fromEntries([...map].sort())

describe("session.revert and unrevert", () => {
  it("puts the files back as they were before a turn, hides the turn, and unrevert brings it all back", async () => {
    const { runtime, fake, session, users, messages, events } = await runThree()
    expect(files(fake.files)).toEqual({ a: "3" })

    const reverted = await runtime.session.revert({ sessionID: session.id, messageID: users[1]!.info.id })
    expect(files(fake.files)).toEqual({ a: "1" })
    expect(reverted.revert).toMatchObject({ messageID: users[1]!.info.id, snapshot: expect.any(String) })
    expect(reverted.revert?.partID).toBeUndefined()
    expect(reverted.revert?.diff).toContain("-3")
    expect(reverted.summary).toEqual({ additions: 1, deletions: 0, files: 1 })
    expect((await runtime.session.get(session.id)).revert).toEqual(reverted.revert)
    // Hidden, not deleted: the messages stay until the next prompt.
    expect(await runtime.session.messages(session.id)).toHaveLength(messages.length)
    expect(events.filter((event) => event.type === "session.diff").at(-1)).toMatchObject({
      properties: { sessionID: session.id, diff: [{ file: "a", after: "1" }] },
    })

    const back = await runtime.session.unrevert({ sessionID: session.id })
    expect(back.revert).toBeUndefined()
    expect(files(fake.files)).toEqual({ a: "3" })
    expect(back.summary).toEqual({ additions: 1, deletions: 0, files: 1 })
    expect(await runtime.session.messages(session.id)).toHaveLength(messages.length)
  })

  it("makes the revert final at the next prompt: the hidden turns are removed and never reach the model", async () => {
    const { runtime, model, fake, session, users, ask, events } = await runThree([[say.text("again")]])
    await runtime.session.revert({ sessionID: session.id, messageID: users[1]!.info.id })
    const answer = await ask("instead")
    expect(answer.parts.find((part) => part.type === "text")).toMatchObject({ text: "again" })
    const texts = (await runtime.session.messages(session.id)).flatMap((message) =>
      message.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])),
    )
    expect(texts).toEqual(["first", "one", "instead", "again"])
    expect((await runtime.session.get(session.id)).revert).toBeUndefined()
    expect(JSON.stringify(model.calls.at(-1)!.prompt)).not.toContain("second")
    expect(files(fake.files)).toEqual({ a: "1" })
    // Turns two and three: each a user message and two answers (the tool step and the text).
    expect(events.filter((event) => event.type === "message.removed")).toHaveLength(6)
    // Nothing is left to unrevert.
    expect((await runtime.session.unrevert({ sessionID: session.id })).revert).toBeUndefined()
    expect(files(fake.files)).toEqual({ a: "1" })
  })

  it("reverts from a part: the step that part belongs to and everything after", async () => {
    const { runtime, fake, session, messages } = await runThree()
    const answer = messages.find(
      (message) => message.info.role === "assistant" && message.parts.some((part) => part.type === "patch"),
    )!
    const tool = answer.parts.find((part) => part.type === "tool")!
    const reverted = await runtime.session.revert({
      sessionID: session.id,
      messageID: answer.info.id,
      partID: tool.id,
    })
    expect(reverted.revert).toMatchObject({ messageID: answer.info.id, partID: tool.id })
    expect(files(fake.files)).toEqual({})
    // Reverting to a message's first part is reverting the message.
    const first = answer.parts[0]!
    const whole = await runtime.session.revert({
      sessionID: session.id,
      messageID: answer.info.id,
      partID: first.id,
    })
    expect(whole.revert?.partID).toBeUndefined()
  })

  it("reverts again to a later point from the newest files, and unrevert still returns to them", async () => {
    const { runtime, fake, session, users } = await runThree()
    await runtime.session.revert({ sessionID: session.id, messageID: users[0]!.info.id })
    expect(files(fake.files)).toEqual({})
    await runtime.session.revert({ sessionID: session.id, messageID: users[2]!.info.id })
    expect(files(fake.files)).toEqual({ a: "2", b: "x\ny" })
    await runtime.session.unrevert({ sessionID: session.id })
    expect(files(fake.files)).toEqual({ a: "3" })
  })

  it("refuses a busy session with Session.BusyError and changes nothing", async () => {
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
        return { title: "", output: "ok", metadata: {} }
      },
    })
    const { runtime, fake, session, users, ask } = await runThree(
      [[say.toolCall("wait", {})], [say.text("done")]],
      {
        tools: [wait],
      },
    )
    const pending = ask("wait")
    await running
    const refused = await runtime.session
      .revert({ sessionID: session.id, messageID: users[0]!.info.id })
      .catch((e) => e)
    expect(Session.BusyError.isInstance(refused)).toBe(true)
    expect((refused as InstanceType<typeof Session.BusyError>).data.sessionID).toBe(session.id)
    const unrefused = await runtime.session.unrevert({ sessionID: session.id }).catch((e) => e)
    expect(Session.BusyError.isInstance(unrefused)).toBe(true)
    release()
    await pending
    expect(files(fake.files)).toEqual({ a: "3" })
    expect((await runtime.session.get(session.id)).revert).toBeUndefined()
  })

  it("names what is wrong with bad targets and touches no file", async () => {
    const { runtime, fake, session, users } = await runThree()
    const other = await runtime.session.create({ title: "other" })
    const calls = fake.calls.length
    const unknown = await runtime.session
      .revert({ sessionID: session.id, messageID: "msg_01ZZZZZZZZZZZZZZZZZZZZZZZZ" })
      .catch((e) => e)
    expect(NotFoundError.isInstance(unknown)).toBe(true)
    const elsewhere = await runtime.session
      .revert({ sessionID: other.id, messageID: users[0]!.info.id })
      .catch((e) => e)
    expect(NotFoundError.isInstance(elsewhere)).toBe(true)
    const part = await runtime.session
      .revert({
        sessionID: session.id,
        messageID: users[0]!.info.id,
        partID: "prt_01ZZZZZZZZZZZZZZZZZZZZZZZZ",
      })
      .catch((e) => e)
    expect(NotFoundError.isInstance(part)).toBe(true)
    expect(fake.calls.length).toBe(calls)
    expect(files(fake.files)).toEqual({ a: "3" })
    expect((await runtime.session.get(session.id)).revert).toBeUndefined()
  })

  it("needs a Snapshot: without one, or when it cannot record, revert and diff fail with SnapshotUnavailableError", async () => {
    const none = await runThree([], { snapshot: null })
    const revert = await none.runtime.session
      .revert({ sessionID: none.session.id, messageID: none.users[0]!.info.id })
      .catch((e) => e)
    expect(SnapshotUnavailableError.isInstance(revert)).toBe(true)
    const diff = await none.runtime.session.diff({ sessionID: none.session.id }).catch((e) => e)
    expect(SnapshotUnavailableError.isInstance(diff)).toBe(true)
    expect(files(none.fake.files)).toEqual({ a: "3" })

    const blind = await runThree([], { snapshot: (fake) => ({ ...fake, track: async () => undefined }) })
    // Steps went on without patches.
    expect(blind.messages.flatMap((message) => message.parts).some((part) => part.type === "patch")).toBe(
      false,
    )
    const refused = await blind.runtime.session
      .revert({ sessionID: blind.session.id, messageID: blind.users[0]!.info.id })
      .catch((e) => e)
    expect(SnapshotUnavailableError.isInstance(refused)).toBe(true)
    const unseen = await blind.runtime.session.diff({ sessionID: blind.session.id }).catch((e) => e)
    expect(SnapshotUnavailableError.isInstance(unseen)).toBe(true)
    expect((await blind.runtime.session.get(blind.session.id)).revert).toBeUndefined()
  })

  it("finishes a revert cut short by a crash before the session moves on", async () => {
    let crash = true
    const crashing = (snapshot: Snapshot): Snapshot => ({
      ...snapshot,
      async revert(patches) {
        if (!crash) return snapshot.revert(patches)
        crash = false
        // Half done: the first file is back, then the process dies.
        await snapshot.revert([{ hash: patches[0]!.hash, files: ["b"] }])
        throw new Error("killed")
      },
    })
    const { runtime, fake, session, users, ask } = await runThree([[say.text("after")]], {
      snapshot: crashing,
    })
    await expect(
      runtime.session.revert({ sessionID: session.id, messageID: users[1]!.info.id }),
    ).rejects.toThrow("killed")
    // The session says reverted; the next prompt puts the rest of the files back first.
    expect((await runtime.session.get(session.id)).revert?.messageID).toBe(users[1]!.info.id)
    expect(files(fake.files)).toEqual({ a: "3" })
    await ask("go on")
    expect(files(fake.files)).toEqual({ a: "1" })
    expect((await runtime.session.get(session.id)).revert).toBeUndefined()
  })
})

describe("revert and compaction", () => {
  it("a revert to before a compaction removes the summary with it: the history it stood for comes back", async () => {
    const { runtime, model, session, users, ask } = await runThree([
      [say.text("SUMMARY of the first turn")],
      [say.text("four")],
      [say.text("again")],
    ])
    await runtime.session.compact({ sessionID: session.id })
    await ask("fourth")
    // The summary now stands for the first turn.
    const before = JSON.stringify(model.calls.at(-1)!.prompt)
    expect(before).toContain("SUMMARY of the first turn")
    expect(before).not.toContain('"first"')

    await runtime.session.revert({ sessionID: session.id, messageID: users[1]!.info.id })
    await ask("instead")
    const after = JSON.stringify(model.calls.at(-1)!.prompt)
    expect(after).toContain("first")
    expect(after).not.toContain("SUMMARY")
    expect(after).not.toContain("fourth")
    expect(after).not.toContain("second")
  })
})

describe("session.diff and turn summaries", () => {
  it("keeps each turn's changes on its user message, the totals on the session, and diffs on demand", async () => {
    const { runtime, session, users, messages } = await runThree()
    const second = users[1]!.info as MessageV2.User
    expect(second.summary?.diffs).toEqual([
      { file: "a", before: "1", after: "2", additions: 1, deletions: 1 },
      { file: "b", before: "", after: "x\ny", additions: 2, deletions: 0 },
    ])
    expect(await runtime.session.diff({ sessionID: session.id, messageID: second.id })).toEqual(
      second.summary?.diffs,
    )
    expect(await runtime.session.diff({ sessionID: session.id })).toEqual([
      { file: "a", before: "", after: "3", additions: 1, deletions: 0 },
    ])
    expect((await runtime.session.get(session.id)).summary).toEqual({ additions: 1, deletions: 0, files: 1 })
    const answer = messages.find(
      (message) => message.info.role === "assistant" && message.info.parentID === second.id,
    )!
    expect(await runtime.session.diff({ sessionID: session.id, messageID: answer.info.id })).toHaveLength(2)
    const missing = await runtime.session
      .diff({ sessionID: session.id, messageID: "msg_01ZZZZZZZZZZZZZZZZZZZZZZZZ" })
      .catch((e) => e)
    expect(NotFoundError.isInstance(missing)).toBe(true)
  })
})
