import { describe, expect, it, vi } from "vitest"
import { catalog, createBus, type Event } from "../../src/bus/index.js"
import { createBuilders } from "../../src/testing/index.js"

const build = createBuilders()
const sessionA = build.session()
const sessionB = build.session()

function publishIdle(bus: ReturnType<typeof createBus>, sessionID: string) {
  bus.publish("session.idle", { sessionID })
}

describe("event bus", () => {
  it("delivers events to typed listeners and to onAny, until unsubscribed", () => {
    const bus = createBus()
    const idle: string[] = []
    const any: Event["type"][] = []
    const offIdle = bus.on("session.idle", (event) => {
      idle.push(event.properties.sessionID)
    })
    const offAny = bus.onAny((event) => {
      any.push(event.type)
    })
    publishIdle(bus, sessionA.id)
    bus.publish("session.compacted", { sessionID: sessionA.id })
    offIdle()
    offAny()
    publishIdle(bus, sessionB.id)
    expect(idle).toEqual([sessionA.id])
    expect(any).toEqual(["session.idle", "session.compacted"])
    expect(bus.listenerCount()).toBe(0)
  })

  it("keeps publishing when a listener throws, and reports the error", async () => {
    const onListenerError = vi.fn()
    const bus = createBus({ onListenerError })
    const received: string[] = []
    bus.on("session.idle", () => {
      throw new Error("listener bug")
    })
    bus.on("session.idle", async () => {
      throw new Error("async listener bug")
    })
    bus.on("session.idle", (event) => {
      received.push(event.properties.sessionID)
    })
    publishIdle(bus, sessionA.id)
    await Promise.resolve()
    expect(received).toEqual([sessionA.id])
    expect(onListenerError.mock.calls.map(([error]) => (error as Error).message)).toEqual([
      "listener bug",
      "async listener bug",
    ])
  })

  it("streams events of one session in publish order and removes its listener when aborted", async () => {
    const bus = createBus()
    const controller = new AbortController()
    const stream = bus.stream({ sessionID: sessionA.id, signal: controller.signal })[Symbol.asyncIterator]()
    expect(bus.listenerCount()).toBeGreaterThan(0)
    publishIdle(bus, sessionA.id)
    publishIdle(bus, sessionB.id)
    bus.publish("session.compacted", { sessionID: sessionA.id })
    expect((await stream.next()).value?.type).toBe("session.idle")
    expect((await stream.next()).value?.type).toBe("session.compacted")
    const pending = stream.next()
    bus.publish("message.removed", { sessionID: sessionA.id, messageID: build.ids.ascending("message") })
    expect((await pending).value?.type).toBe("message.removed")
    const waiting = stream.next()
    controller.abort()
    expect(await waiting).toEqual({ value: undefined, done: true })
    expect(bus.listenerCount()).toBe(0)
  })

  it("ends every stream when the bus closes, leaving no listener", async () => {
    const bus = createBus()
    const seen: string[] = []
    const consumers = [undefined, sessionA.id].map(async (sessionID) => {
      for await (const event of bus.stream(sessionID ? { sessionID } : {})) seen.push(event.type)
    })
    publishIdle(bus, sessionA.id)
    bus.close()
    await Promise.all(consumers)
    expect(seen).toEqual(["session.idle", "session.idle"])
    expect(bus.listenerCount()).toBe(0)
    const late: Event[] = []
    for await (const event of bus.stream()) late.push(event)
    expect(late).toEqual([])
  })

  it("removes the listener when a consumer breaks out of the loop", async () => {
    const bus = createBus()
    const consumer = (async () => {
      for await (const event of bus.stream()) if (event.type === "session.idle") break
    })()
    publishIdle(bus, sessionA.id)
    await consumer
    expect(bus.listenerCount()).toBe(0)
  })

  it("listens from the call to stream(), before the first read", async () => {
    const bus = createBus()
    const stream = bus.stream({ sessionID: sessionA.id })
    publishIdle(bus, sessionA.id)
    bus.publish("session.compacted", { sessionID: sessionA.id })
    bus.close()
    const seen: string[] = []
    for await (const event of stream) seen.push(event.type)
    expect(seen).toEqual(["session.idle", "session.compacted"])
  })

  it("lets go of the bus when a stream falls 10,000 events behind, ending after those it holds", async () => {
    const bus = createBus()
    const stream = bus.stream()
    for (let index = 0; index < 10_001; index++) publishIdle(bus, sessionA.id)
    expect(bus.listenerCount()).toBe(0)
    let count = 0
    for await (const _ of stream) count++
    expect(count).toBe(10_000)
  })

  it("returns at once from a stream whose signal is already aborted", async () => {
    const bus = createBus()
    const events: Event[] = []
    for await (const event of bus.stream({ signal: AbortSignal.abort() })) events.push(event)
    expect(events).toEqual([])
    expect(bus.listenerCount()).toBe(0)
  })

  it("has a zod schema for every event type of the catalog", () => {
    expect(Object.keys(catalog).sort()).toEqual(
      [
        "message.part.delta",
        "message.part.removed",
        "message.part.updated",
        "message.removed",
        "message.updated",
        "permission.asked",
        "permission.replied",
        "question.asked",
        "question.rejected",
        "question.replied",
        "session.compacted",
        "session.created",
        "session.deleted",
        "session.diff",
        "session.error",
        "session.idle",
        "session.status",
        "session.updated",
        "todo.updated",
      ].sort(),
    )
    const status = catalog["session.status"].properties.safeParse({
      sessionID: sessionA.id,
      status: { type: "retry", attempt: 1, message: "overloaded", next: 1 },
    })
    expect(status.success).toBe(true)
    expect(catalog["message.part.delta"].properties.safeParse({ sessionID: sessionA.id }).success).toBe(false)
  })
})
