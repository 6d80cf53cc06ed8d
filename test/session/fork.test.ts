import { describe, expect, it } from "vitest"
import { Identifier, type MessageV2, NotFoundError, type Runtime } from "../../src/index.js"
import { recordingRuntime, rejection } from "./helpers.js"

/** user -> assistant (tool with an attachment, step-finish) -> user (compaction) -> assistant */
async function conversation(runtime: Runtime, sessionID: string) {
  const ids: string[] = []
  const message = async (info: Record<string, unknown>): Promise<string> => {
    const id = await runtime.session.newMessageID(sessionID)
    await runtime.session.updateMessage({
      id,
      sessionID,
      time: { created: 1 },
      agent: "build",
      ...info,
    } as MessageV2.Info)
    ids.push(id)
    return id
  }
  const part = (messageID: string, part: Record<string, unknown>) =>
    runtime.session.updatePart({
      id: runtime.session.newPartID(messageID),
      sessionID,
      messageID,
      ...part,
    } as MessageV2.Part)
  const assistant = (parentID: string, cost: number) => ({
    role: "assistant",
    parentID,
    providerID: "p",
    modelID: "m",
    path: { cwd: "/", root: "/" },
    cost,
    tokens: { input: 10, output: 5, reasoning: 1, cache: { read: 2, write: 3 } },
  })
  const user = { role: "user", model: { providerID: "p", modelID: "m" } }

  const first = await message(user)
  await part(first, { type: "text", text: "read a.ts" })
  const reply = await message(assistant(first, 0.25))
  await part(reply, {
    type: "tool",
    callID: "call_1",
    tool: "read",
    state: {
      status: "completed",
      input: {},
      output: "...",
      title: "a.ts",
      metadata: {},
      attachments: [
        {
          id: runtime.session.newPartID(reply),
          sessionID,
          messageID: reply,
          type: "file",
          mime: "image/png",
          url: "data:,",
        },
      ],
      time: { start: 1, end: 2 },
    },
  })
  const second = await message(user)
  await part(second, { type: "compaction", auto: true, tailStartID: reply })
  const last = await message(assistant(second, 0.5))
  await part(last, { type: "text", text: "done" })
  return { first, reply, second, last }
}

describe("session.fork", () => {
  it("copies the messages before the given one with fresh IDs and remapped references", async () => {
    const { runtime, events, clear } = recordingRuntime()
    const original = await runtime.session.create({
      title: "Refactor",
      permission: [{ permission: "bash", pattern: "*", action: "ask" }],
    })
    const { second, last } = await conversation(runtime, original.id)
    const before = await runtime.session.messages(original.id)
    clear()

    const fork = await runtime.session.fork({ sessionID: original.id, messageID: last })
    expect(fork.title).toBe("Refactor (fork #1)")
    expect(fork.permission).toEqual(original.permission)
    expect(fork.parentID).toBeUndefined()
    expect(fork.cost).toBe(0.25)
    expect(fork.tokens).toEqual({ input: 10, output: 5, reasoning: 1, cache: { read: 2, write: 3 } })

    const copied = await runtime.session.messages(fork.id)
    expect(copied).toHaveLength(3)
    const [firstCopy, replyCopy, secondCopy] = copied as [
      MessageV2.WithParts,
      MessageV2.WithParts,
      MessageV2.WithParts,
    ]
    const oldIDs = new Set(
      before.flatMap((message) => [message.info.id, ...message.parts.map((part) => part.id)]),
    )
    for (const message of copied) {
      expect(oldIDs.has(message.info.id)).toBe(false)
      expect(message.info.sessionID).toBe(fork.id)
      for (const part of message.parts) {
        expect(oldIDs.has(part.id)).toBe(false)
        expect(part).toMatchObject({ sessionID: fork.id, messageID: message.info.id })
      }
    }
    expect(replyCopy.info.role === "assistant" && replyCopy.info.parentID).toBe(firstCopy.info.id)
    const tool = replyCopy.parts[0] as MessageV2.ToolPart
    const attachment = tool.state.status === "completed" ? tool.state.attachments?.[0] : undefined
    expect(attachment).toMatchObject({ sessionID: fork.id, messageID: replyCopy.info.id })
    expect(secondCopy.parts[0]).toMatchObject({ type: "compaction", tailStartID: replyCopy.info.id })
    expect(secondCopy.info.id).not.toBe(second)

    expect(events.map((event) => event.type)).toEqual([
      "session.created",
      "message.updated",
      "message.part.updated",
      "message.updated",
      "message.part.updated",
      "message.updated",
      "message.part.updated",
    ])
    expect(await runtime.session.messages(original.id)).toEqual(before)
  })

  it("copies the whole session without a message ID and numbers later forks", async () => {
    const { runtime } = recordingRuntime()
    const original = await runtime.session.create({ title: "Plan" })
    await conversation(runtime, original.id)
    const fork1 = await runtime.session.fork({ sessionID: original.id })
    const fork2 = await runtime.session.fork({ sessionID: original.id })
    const fork3 = await runtime.session.fork({ sessionID: fork1.id })
    expect([fork1.title, fork2.title, fork3.title]).toEqual([
      "Plan (fork #1)",
      "Plan (fork #2)",
      "Plan (fork #3)",
    ])
    expect(await runtime.session.messages(fork1.id)).toHaveLength(4)
    expect(fork1.cost).toBe(0.75)
  })

  it("refuses a message that is not in the session, creating nothing", async () => {
    const { runtime } = recordingRuntime()
    const original = await runtime.session.create()
    const messageID = Identifier.ascending("message")
    const error = await rejection(runtime.session.fork({ sessionID: original.id, messageID }))
    expect(NotFoundError.isInstance(error)).toBe(true)
    expect((error as NotFoundError).data.id).toBe(messageID)
    expect(await runtime.session.list()).toHaveLength(1)
  })
})
