import { describe, expect, it } from "vitest"
import { z } from "zod"
import { MemoryStorage, type MessageV2, StorageError, type StorageWrite, Tool } from "../../src/index.js"
import { createTestRuntime, say } from "../../src/testing/index.js"

/** Memory storage whose writes fail while `failing` says so, as a full disk would. */
class FaultyStorage extends MemoryStorage {
  failing: (writes: readonly StorageWrite[]) => boolean = () => false
  failures = 0
  override async write(writes: readonly StorageWrite[]) {
    if (this.failing(writes)) {
      this.failures++
      throw new Error("database or disk is full")
    }
    return super.write(writes)
  }
}

const lookup = Tool.define("lookup", {
  description: "Looks a word up",
  parameters: z.object({ word: z.string() }),
  async execute({ word }) {
    return { title: word, output: `${word}: found`, metadata: {} }
  },
})

const completedTool = (writes: readonly StorageWrite[]) =>
  writes.some(
    (write) =>
      write.type === "part.put" && write.part.type === "tool" && write.part.state.status === "completed",
  )

const unfinished = (messages: MessageV2.WithParts[]) =>
  messages.flatMap((message) => [
    ...(message.info.role === "assistant" && message.info.time.completed === undefined
      ? [`${message.info.id} open`]
      : []),
    ...message.parts.flatMap((part) =>
      (part.type === "tool" && (part.state.status === "running" || part.state.status === "pending")) ||
      ((part.type === "text" || part.type === "reasoning") &&
        part.time?.end === undefined &&
        part.time !== undefined)
        ? [`${part.type} ${part.id} unfinished`]
        : [],
    ),
  ])

/** Which batch of a tool-calling turn fails. */
const faults: [string, (writes: readonly StorageWrite[]) => boolean][] = [
  ["the completed tool part", completedTool],
  [
    "the step's usage with the session's totals",
    (writes) => writes.some((write) => write.type === "session.put"),
  ],
  [
    "the answer with its first part",
    (writes) => writes.some((write) => write.type === "message.put" && write.info.role === "assistant"),
  ],
  [
    "the user's message",
    (writes) => writes.some((write) => write.type === "message.put" && write.info.role === "user"),
  ],
  [
    "the tool's running state",
    (writes) =>
      writes.some(
        (write) =>
          write.type === "part.put" && write.part.type === "tool" && write.part.state.status === "running",
      ),
  ],
]

describe("a storage write that fails mid-turn", () => {
  it.each(faults)(
    "fails on %s: the prompt rejects with a StorageError, the next read closes what was left open, and the session goes on",
    async (_, fault) => {
      const storage = new FaultyStorage()
      const { runtime, model } = createTestRuntime({
        storage,
        tools: [lookup],
        turns: [
          [say.text("Looking."), say.toolCall("lookup", { word: "tea" })],
          [say.text("Tea is found.")],
          [say.text("Carried on.")],
        ],
      })
      const session = await runtime.session.create()
      let once = true
      storage.failing = (writes) => {
        if (!once || !fault(writes)) return false
        once = false
        return true
      }
      const error = await runtime.session
        .prompt({ sessionID: session.id, parts: [{ type: "text", text: "look up tea" }] })
        .then(
          () => undefined,
          (reason: unknown) => reason,
        )
      expect(StorageError.isInstance(error)).toBe(true)
      expect((error as StorageError).data).toMatchObject({ reason: "io", retryable: false })
      expect((error as Error).cause).toEqual(new Error("database or disk is full"))
      expect(storage.failures).toBe(1)
      expect(runtime.session.status(session.id)).toEqual({ type: "idle" })

      // Storage takes writes again: the next read closes what the failed turn left open.
      const messages = await runtime.session.messages(session.id)
      expect(unfinished(messages)).toEqual([])
      for (const part of messages.flatMap((message) => message.parts))
        if (part.type === "tool" && part.state.status === "error")
          expect(part.state.metadata).toMatchObject({ interrupted: true })

      // loop() continues the cut turn, or finds it answered; a new prompt goes on either way.
      if (messages.length > 0) {
        const continued = await runtime.session.loop(session.id)
        expect(continued.info.role === "assistant" && continued.info.error).toBeUndefined()
      }
      const answer = await runtime.session.prompt({
        sessionID: session.id,
        parts: [{ type: "text", text: "again" }],
      })
      expect(answer.info.role === "assistant" && answer.info.error).toBeUndefined()
      expect(unfinished(await runtime.session.messages(session.id))).toEqual([])
      expect(model.calls.length).toBeGreaterThanOrEqual(2)
      await runtime.close()
    },
  )

  it.each([
    [
      "the approval an always records",
      "always" as const,
      (write: StorageWrite) => write.type === "value.put" && write.key.startsWith("permission/approved"),
    ],
    [
      "the answered request's removal",
      "once" as const,
      (write: StorageWrite) => write.type === "value.remove" && write.key.startsWith("permission/pending/"),
    ],
  ])(
    "fails on %s, answered by the host's handler: no unhandled rejection, nothing unfinished, the session goes on",
    async (_, reply, fault) => {
      const storage = new FaultyStorage()
      const guarded = Tool.define("guarded", {
        description: "Asks first",
        parameters: z.object({}),
        async execute(_args, context) {
          await context.ask({ permission: "guarded", patterns: ["x"], always: ["x"] })
          return { title: "ran", output: "ran", metadata: {} }
        },
      })
      const { runtime } = createTestRuntime({
        storage,
        tools: [guarded],
        permission: [{ permission: "guarded", pattern: "*", action: "ask" }],
        onPermission: async () => reply,
        turns: [[say.toolCall("guarded", {})], [say.text("Ran.")], [say.text("Again.")]],
      })
      const session = await runtime.session.create()
      // From that write on, storage is down (every write fails) until the turn has ended.
      let down = false
      storage.failing = (writes) => {
        down ||= writes.some(fault)
        return down
      }
      // Either the turn stops with the storage error, or (the answer taken before the failed
      // removal) it goes on; what matters is that the failure surfaces nowhere unhandled.
      await runtime.session
        .prompt({ sessionID: session.id, parts: [{ type: "text", text: "go" }] })
        .catch((error: unknown) => {
          expect(StorageError.isInstance(error)).toBe(true)
        })
      expect(storage.failures).toBeGreaterThanOrEqual(1)
      storage.failing = () => false
      // loop() goes on with the turn: a request left stored was this process's own, answered.
      const continued = await runtime.session.loop(session.id)
      expect(continued.info.role).toBe("assistant")
      expect(continued.info.role === "assistant" && continued.info.error).toBeUndefined()
      expect(unfinished(await runtime.session.messages(session.id))).toEqual([])
      const answer = await runtime.session.prompt({
        sessionID: session.id,
        parts: [{ type: "text", text: "again" }],
      })
      expect(answer.info.role === "assistant" && answer.info.error).toBeUndefined()
      await runtime.close()
    },
  )

  it("fails once on the answered request's removal alone: the stored request holds no later turn", async () => {
    const storage = new FaultyStorage()
    const guarded = Tool.define("guarded", {
      description: "Asks first",
      parameters: z.object({}),
      async execute(_args, context) {
        await context.ask({ permission: "guarded", patterns: ["x"], always: [] })
        return { title: "ran", output: "ran", metadata: {} }
      },
    })
    const { runtime } = createTestRuntime({
      storage,
      tools: [guarded],
      permission: [{ permission: "guarded", pattern: "*", action: "ask" }],
      onPermission: async () => "once",
      turns: [[say.toolCall("guarded", {})], [say.text("Ran.")], [say.text("Again.")], [say.text("Still.")]],
    })
    const session = await runtime.session.create()
    // Only that write fails, as when another process held the lock just then: the writes after it go through.
    let once = true
    storage.failing = (writes) => {
      if (
        !once ||
        !writes.some((write) => write.type === "value.remove" && write.key.startsWith("permission/pending/"))
      )
        return false
      once = false
      return true
    }
    const first = await runtime.session
      .prompt({ sessionID: session.id, parts: [{ type: "text", text: "go" }] })
      .catch((error: unknown) => {
        expect(StorageError.isInstance(error)).toBe(true)
        return undefined
      })
    expect(storage.failures).toBe(1)
    if (first) expect(first.info.role === "assistant" && first.info.error).toBeUndefined()
    // The session goes on: the next prompt is answered by the model, not held for the request.
    const user = await runtime.session.prompt({
      sessionID: session.id,
      parts: [{ type: "text", text: "again" }],
      noReply: true,
    })
    const answer = await runtime.session.loop(session.id)
    expect(answer.info.role).toBe("assistant")
    expect(answer.info.role === "assistant" && answer.info.parentID).toBe(user.info.id)
    expect(answer.info.role === "assistant" && answer.info.error).toBeUndefined()
    expect(await runtime.permission.list()).toEqual([])
    await runtime.close()
  })

  it("leaves nothing unfinished for a fresh runtime on the same storage either", async () => {
    const storage = new FaultyStorage()
    const first = createTestRuntime({
      storage,
      tools: [lookup],
      turns: [[say.text("Looking."), say.toolCall("lookup", { word: "tea" })], [say.text("Tea is found.")]],
    }).runtime
    const session = await first.session.create()
    let once = true
    storage.failing = (writes) => {
      if (!once || !completedTool(writes)) return false
      once = false
      return true
    }
    await expect(
      first.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "look up tea" }] }),
    ).rejects.toThrow("database or disk is full")

    const second = createTestRuntime({ storage, turns: [[say.text("Fresh.")]] }).runtime
    expect(unfinished(await second.session.messages(session.id))).toEqual([])
  })
})
