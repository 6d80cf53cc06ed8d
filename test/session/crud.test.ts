import { afterEach, describe, expect, it, vi } from "vitest"
import { Identifier, InvalidInputError, MemoryStorage, NotFoundError } from "../../src/index.js"
import { createBuilders } from "../../src/testing/index.js"
import { recordingRuntime, rejection } from "./helpers.js"

afterEach(() => {
  vi.useRealTimers()
})

describe("session.create", () => {
  it("stores a session with a default title and publishes session.created", async () => {
    vi.useFakeTimers({ now: new Date("2026-11-22T10:00:00.000Z"), toFake: ["Date"] })
    const { runtime, events } = recordingRuntime()
    const info = await runtime.session.create()
    expect(info.title).toBe("New session - 2026-11-22T10:00:00.000Z")
    expect(info).toMatchObject({
      directory: "/work/project",
      cost: 0,
      time: { created: Date.now(), updated: Date.now() },
    })
    expect(info.slug).toMatch(/^[a-z]+-[a-z]+$/)
    expect(await runtime.session.get(info.id)).toEqual(info)
    expect(events).toEqual([{ type: "session.created", properties: { sessionID: info.id, info } }])
  })

  it("titles a child session as such", async () => {
    vi.useFakeTimers({ now: new Date("2026-11-22T10:00:00.000Z"), toFake: ["Date"] })
    const { runtime } = recordingRuntime()
    const parent = await runtime.session.create({ title: "Parent" })
    const child = await runtime.session.create({ parentID: parent.id })
    expect(child.title).toBe("Child session - 2026-11-22T10:00:00.000Z")
    expect(child.parentID).toBe(parent.id)
  })

  it("refuses an unknown parent with a NotFoundError naming it, storing nothing", async () => {
    const { runtime, events } = recordingRuntime()
    const parentID = Identifier.descending("session")
    const error = await rejection(runtime.session.create({ parentID }))
    expect(NotFoundError.isInstance(error)).toBe(true)
    expect((error as NotFoundError).data.id).toBe(parentID)
    expect(await runtime.session.list()).toEqual([])
    expect(events).toEqual([])
  })

  it("refuses bad input with an error naming the field", async () => {
    const { runtime } = recordingRuntime()
    const wrongType = await rejection(runtime.session.create({ title: 5 as unknown as string }))
    expect(InvalidInputError.isInstance(wrongType)).toBe(true)
    expect((wrongType as InvalidInputError).data.issues.map((issue) => issue.path)).toEqual(["title"])
    const unknownKey = await rejection(runtime.session.create({ titel: "x" } as never))
    expect((unknownKey as InvalidInputError).message).toContain("titel")
    const badRule = await rejection(
      runtime.session.create({
        permission: [{ permission: "bash", pattern: "*", action: "maybe" }],
      } as never),
    )
    expect((badRule as InvalidInputError).data.issues[0]?.path).toBe("permission.0.action")
    expect(await runtime.session.list()).toEqual([])
  })
})

describe("session.get", () => {
  it("names the missing ID, and the field of a malformed one", async () => {
    const { runtime } = recordingRuntime()
    const missing = Identifier.descending("session")
    const notFound = await rejection(runtime.session.get(missing))
    expect(NotFoundError.isInstance(notFound)).toBe(true)
    expect(notFound.message).toContain(missing)
    const malformed = await rejection(runtime.session.get("session-1"))
    expect(InvalidInputError.isInstance(malformed)).toBe(true)
    expect((malformed as InvalidInputError).data.issues[0]?.path).toBe("sessionID")
  })
})

describe("session.message", () => {
  it("answers one message with its parts, read alone; names a missing message or session, and a malformed ID's field", async () => {
    const storage = new MemoryStorage()
    const { runtime } = recordingRuntime({ storage })
    const session = await runtime.session.create()
    const build = createBuilders()
    const user = build.user(session.id)
    const saved = await runtime.session.saveMessage({ info: user, parts: [build.text(session.id, user.id)] })
    // A process's first read of a session looks over its history once, for a turn a crash cut off.
    expect(await runtime.session.message(session.id, user.id)).toEqual(saved)
    const listings = vi.spyOn(storage, "listMessages")
    expect(await runtime.session.message(session.id, user.id)).toEqual(saved)
    expect(listings).not.toHaveBeenCalled()

    const missing = Identifier.ascending("message")
    const notFound = await rejection(runtime.session.message(session.id, missing))
    expect(NotFoundError.isInstance(notFound)).toBe(true)
    expect((notFound as NotFoundError).data).toEqual({
      id: missing,
      message: `Message not found: ${missing}`,
    })
    const absent = Identifier.descending("session")
    const noSession = await rejection(runtime.session.message(absent, user.id))
    expect((noSession as NotFoundError).data).toEqual({ id: absent, message: `Session not found: ${absent}` })
    const malformed = await rejection(runtime.session.message(session.id, "message-1"))
    expect(InvalidInputError.isInstance(malformed)).toBe(true)
    expect((malformed as InvalidInputError).data.issues[0]?.path).toBe("messageID")
  })
})

describe("session.list and session.children", () => {
  it("lists newest first, filters by parent, and limits", async () => {
    const { runtime } = recordingRuntime()
    const first = await runtime.session.create({ title: "first" })
    const second = await runtime.session.create({ title: "second" })
    const child = await runtime.session.create({ parentID: first.id })
    const ids = (list: { id: string }[]) => list.map((session) => session.id)
    expect(ids(await runtime.session.list())).toEqual([child.id, second.id, first.id])
    expect(ids(await runtime.session.list({ parentID: first.id }))).toEqual([child.id])
    expect(ids(await runtime.session.list({ limit: 2 }))).toEqual([child.id, second.id])
    expect(ids(await runtime.session.children(first.id))).toEqual([child.id])
    expect(await runtime.session.children(second.id)).toEqual([])
    const badLimit = await rejection(runtime.session.list({ limit: 0 }))
    expect((badLimit as InvalidInputError).data.issues[0]?.path).toBe("limit")
    expect(
      NotFoundError.isInstance(await rejection(runtime.session.children(Identifier.descending("session")))),
    ).toBe(true)
  })
})

describe("session.update and session.touch", () => {
  it("changes title, rules and archive state, and publishes session.updated", async () => {
    vi.useFakeTimers({ now: 1_000, toFake: ["Date"] })
    const { runtime, events, clear } = recordingRuntime()
    const session = await runtime.session.create({ title: "Before" })
    clear()
    vi.setSystemTime(2_000)
    const rules = [{ permission: "bash", pattern: "rm *", action: "deny" as const }]
    const updated = await runtime.session.update(session.id, {
      title: "After",
      permission: rules,
      archived: true,
    })
    expect(updated).toMatchObject({
      title: "After",
      permission: rules,
      time: { created: 1_000, updated: 2_000, archived: 2_000 },
    })
    vi.setSystemTime(3_000)
    const restored = await runtime.session.update(session.id, { archived: false })
    expect(restored.time).toEqual({ created: 1_000, updated: 3_000 })
    vi.setSystemTime(4_000)
    const touched = await runtime.session.touch(session.id)
    expect(touched.time.updated).toBe(4_000)
    expect(await runtime.session.get(session.id)).toEqual(touched)
    expect(events.map((event) => event.type)).toEqual([
      "session.updated",
      "session.updated",
      "session.updated",
    ])
    expect(events[2]?.properties).toEqual({ sessionID: session.id, info: touched })
  })

  it("refuses a bad patch without changing the session", async () => {
    const { runtime } = recordingRuntime()
    const session = await runtime.session.create({ title: "Kept" })
    const error = await rejection(runtime.session.update(session.id, { title: "" }))
    expect((error as InvalidInputError).data.issues[0]?.path).toBe("title")
    expect(await runtime.session.get(session.id)).toEqual(session)
    expect(
      NotFoundError.isInstance(await rejection(runtime.session.touch(Identifier.descending("session")))),
    ).toBe(true)
  })
})

describe("session.remove", () => {
  it("removes the session, its messages and parts, and its descendants, publishing each deletion", async () => {
    const storage = new MemoryStorage()
    const { runtime, events, clear } = recordingRuntime({ storage })
    const root = await runtime.session.create()
    const child = await runtime.session.create({ parentID: root.id })
    const grandchild = await runtime.session.create({ parentID: child.id })
    const other = await runtime.session.create()
    const messageID = await runtime.session.newMessageID(root.id)
    await runtime.session.updateMessage({
      id: messageID,
      sessionID: root.id,
      role: "user",
      time: { created: 1 },
      agent: "build",
      model: { providerID: "p", modelID: "m" },
    })
    clear()
    await runtime.session.remove(root.id)
    expect(events.map((event) => [event.type, event.properties.sessionID])).toEqual([
      ["session.deleted", grandchild.id],
      ["session.deleted", child.id],
      ["session.deleted", root.id],
    ])
    expect((await runtime.session.list()).map((session) => session.id)).toEqual([other.id])
    await expect(storage.listMessages(root.id)).rejects.toThrow(root.id)
    expect(NotFoundError.isInstance(await rejection(runtime.session.remove(root.id)))).toBe(true)
  })
})
