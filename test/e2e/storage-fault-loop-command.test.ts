// Issue 27, item 1: a storage failure cannot be stored, so every way into a turn rejects with the
// StorageError: prompt (test/e2e/storage-fault-turn.test.ts), and here loop() and command().
import { describe, expect, it } from "vitest"
import {
  MemoryStorage,
  type MessageV2,
  type Runtime,
  StorageError,
  type StorageWrite,
} from "../../src/index.js"
import { createTestRuntime, say, testModelInfo } from "../../src/testing/index.js"

/** Memory storage whose next write holding an assistant message fails, as a full disk would. */
class FailsOnAnswer extends MemoryStorage {
  armed = false
  override async write(writes: readonly StorageWrite[]) {
    if (
      this.armed &&
      writes.some((write) => write.type === "message.put" && write.info.role === "assistant")
    ) {
      this.armed = false
      throw new Error("database or disk is full")
    }
    return super.write(writes)
  }
}

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (reason: unknown) => reason,
  )

function expectStorageError(error: unknown) {
  expect(StorageError.isInstance(error)).toBe(true)
  expect((error as StorageError).data).toMatchObject({ reason: "io", retryable: false })
  expect((error as Error).cause).toEqual(new Error("database or disk is full"))
}

async function expectNothingUnfinished(runtime: Runtime, sessionID: string) {
  const messages: MessageV2.WithParts[] = await runtime.session.messages(sessionID)
  const open = messages.filter((message) => message.info.role === "assistant" && !message.info.time.completed)
  expect(open).toEqual([])
}

describe("a storage write that fails in a turn started without prompt (issue 27, item 1)", () => {
  it("loop() rejects with the StorageError, and the session goes on", async () => {
    const storage = new FailsOnAnswer()
    // The first answer is streamed, then its write fails: it is never stored.
    const { runtime } = createTestRuntime({ storage, turns: [[say.text("Lost.")], [say.text("Answered.")]] })
    const session = await runtime.session.create()
    const userID = await runtime.session.newMessageID(session.id)
    await runtime.session.saveMessage({
      info: {
        id: userID,
        sessionID: session.id,
        role: "user",
        time: { created: Date.now() },
        agent: "build",
        model: { providerID: testModelInfo.providerID, modelID: testModelInfo.id },
      },
      parts: [
        {
          id: runtime.session.newPartID(userID),
          sessionID: session.id,
          messageID: userID,
          type: "text",
          text: "hi",
        },
      ],
    })
    storage.armed = true

    expectStorageError(await rejection(runtime.session.loop(session.id)))
    expect(runtime.session.status(session.id)).toEqual({ type: "idle" })
    await expectNothingUnfinished(runtime, session.id)
    const answer = await runtime.session.loop(session.id)
    expect(answer.parts.some((part) => part.type === "text" && part.text === "Answered.")).toBe(true)
    await runtime.close()
  })

  it("command() rejects with the StorageError, and the session goes on", async () => {
    const storage = new FailsOnAnswer()
    const { runtime } = createTestRuntime({
      storage,
      turns: [[say.text("Reviewed.")], [say.text("Reviewed again.")]],
      commands: { review: { template: "review $ARGUMENTS" } },
    })
    const session = await runtime.session.create()
    storage.armed = true

    expectStorageError(
      await rejection(
        runtime.session.command({ sessionID: session.id, command: "review", arguments: "a.ts" }),
      ),
    )
    expect(runtime.session.status(session.id)).toEqual({ type: "idle" })
    await expectNothingUnfinished(runtime, session.id)
    const again = await runtime.session.command({
      sessionID: session.id,
      command: "review",
      arguments: "a.ts",
    })
    expect(again.info.role === "assistant" && again.info.error).toBeUndefined()
    await runtime.close()
  })
})
