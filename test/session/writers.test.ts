import { afterEach, describe, expect, it, vi } from "vitest"
import {
  Identifier,
  InvalidInputError,
  MemoryStorage,
  type MessageV2,
  NotFoundError,
} from "../../src/index.js"
import { createBuilders } from "../../src/testing/index.js"
import { recordingRuntime, rejection } from "./helpers.js"

afterEach(() => {
  vi.useRealTimers()
})

describe("session message writers", () => {
  it("write messages and parts, publishing each change", async () => {
    const { runtime, events, clear } = recordingRuntime()
    const session = await runtime.session.create()
    const build = createBuilders()
    clear()
    const user = build.user(session.id, { id: await runtime.session.newMessageID(session.id) })
    await runtime.session.updateMessage(user)
    const part = { ...build.text(session.id, user.id), id: runtime.session.newPartID(user.id) }
    await runtime.session.updatePart(part)
    const edited = { ...part, text: "edited" } as MessageV2.TextPart
    await runtime.session.updatePart(edited)
    expect(await runtime.session.messages(session.id)).toEqual([{ info: user, parts: [edited] }])
    await runtime.session.removePart({ sessionID: session.id, messageID: user.id, partID: part.id })
    await runtime.session.removeMessage({ sessionID: session.id, messageID: user.id })
    expect(await runtime.session.messages(session.id)).toEqual([])
    expect(events).toEqual([
      { type: "message.updated", properties: { sessionID: session.id, info: user } },
      { type: "message.part.updated", properties: { sessionID: session.id, part } },
      { type: "message.part.updated", properties: { sessionID: session.id, part: edited } },
      {
        type: "message.part.removed",
        properties: { sessionID: session.id, messageID: user.id, partID: part.id },
      },
      { type: "message.removed", properties: { sessionID: session.id, messageID: user.id } },
    ])
  })

  it("publish a text delta without writing it", async () => {
    const storage = new MemoryStorage()
    const write = vi.spyOn(storage, "write")
    const { runtime, events, clear } = recordingRuntime({ storage })
    const session = await runtime.session.create()
    const build = createBuilders()
    const user = build.user(session.id)
    await runtime.session.updateMessage(user)
    const part = build.text(session.id, user.id, "")
    await runtime.session.updatePart(part)
    clear()
    write.mockClear()
    const delta = {
      sessionID: session.id,
      messageID: user.id,
      partID: part.id,
      field: "text" as const,
      delta: "Hel",
    }
    runtime.session.updatePartDelta(delta)
    runtime.session.updatePartDelta({ ...delta, delta: "lo" })
    expect(write).not.toHaveBeenCalled()
    expect(events.map((event) => event.properties)).toEqual([delta, { ...delta, delta: "lo" }])
    expect(() => runtime.session.updatePartDelta({ ...delta, field: "title" as "text" })).toThrow(
      InvalidInputError,
    )
    // The hand check in front of zod lets nothing through that zod would refuse.
    for (const bad of [
      { ...delta, partID: "prt_short" },
      { ...delta, sessionID: user.id },
      { ...delta, delta: 5 as unknown as string },
      { ...delta, extra: true },
    ])
      expect(() => runtime.session.updatePartDelta(bad)).toThrow(InvalidInputError)
  })

  it("refuse a part of a missing message and a message of a missing session", async () => {
    const { runtime, events } = recordingRuntime()
    const build = createBuilders()
    const session = await runtime.session.create()
    const orphanMessage = build.user(Identifier.descending("session"))
    expect(NotFoundError.isInstance(await rejection(runtime.session.updateMessage(orphanMessage)))).toBe(true)
    const messageID = Identifier.ascending("message")
    const error = await rejection(runtime.session.updatePart(build.text(session.id, messageID)))
    expect((error as NotFoundError).data.id).toBe(messageID)
    const invalid = await rejection(
      runtime.session.updatePart({ ...build.text(session.id, messageID), type: "nope" } as never),
    )
    expect(InvalidInputError.isInstance(invalid)).toBe(true)
    expect(events.map((event) => event.type)).toEqual(["session.created"])
  })

  it("make a new message ID that sorts after everything in the session, whatever the clock did", async () => {
    const storage = new MemoryStorage()
    const { runtime } = recordingRuntime({ storage })
    const session = await runtime.session.create()
    // Another writer, whose clock runs an hour ahead, added a message and a part.
    vi.useFakeTimers({ now: Date.now() + 3_600_000, toFake: ["Date"] })
    const other = createBuilders(Identifier.createGenerator())
    const foreign = other.user(session.id)
    const foreignPart = other.text(session.id, foreign.id)
    await storage.write([
      { type: "message.put", info: foreign },
      { type: "part.put", part: foreignPart },
    ])
    vi.setSystemTime(Date.now() - 3_600_000)
    const next = await runtime.session.newMessageID(session.id)
    expect(next > foreign.id).toBe(true)
    expect(next.slice(4) > foreignPart.id.slice(4)).toBe(true)
    const partID = runtime.session.newPartID(next)
    expect(partID.slice(4) > next.slice(4)).toBe(true)
  })
})
