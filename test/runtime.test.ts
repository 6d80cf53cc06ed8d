import { describe, expect, it, vi } from "vitest"
import {
  createRuntime,
  type Event,
  InvalidInputError,
  MemoryStorage,
  RuntimeClosedError,
} from "../src/index.js"
import { rejection } from "./session/helpers.js"

describe("createRuntime", () => {
  it("keeps two runtimes on two storages apart: sessions and events", async () => {
    const a = createRuntime({ storage: new MemoryStorage() })
    const b = createRuntime({ storage: new MemoryStorage() })
    const seenByA: Event[] = []
    const seenByB: Event[] = []
    a.events.onAny((event) => {
      seenByA.push(event)
    })
    b.events.onAny((event) => {
      seenByB.push(event)
    })
    const inA = await a.session.create({ title: "in A" })
    const inB = await b.session.create({ title: "in B" })
    expect((await a.session.list()).map((session) => session.id)).toEqual([inA.id])
    expect((await b.session.list()).map((session) => session.id)).toEqual([inB.id])
    await expect(b.session.get(inA.id)).rejects.toThrow(inA.id)
    expect(seenByA.map((event) => event.properties.sessionID)).toEqual([inA.id])
    expect(seenByB.map((event) => event.properties.sessionID)).toEqual([inB.id])
  })

  it("closes: ends event streams, closes storage, and refuses later calls", async () => {
    const storage = new MemoryStorage()
    const close = vi.spyOn(storage, "close")
    const runtime = createRuntime({ storage })
    const session = await runtime.session.create()
    const streamed: Event[] = []
    const consumer = (async () => {
      for await (const event of runtime.events.stream()) streamed.push(event)
    })()
    await runtime.session.touch(session.id)
    await Promise.all([runtime.close(), runtime.close()])
    await consumer
    expect(streamed.map((event) => event.type)).toEqual(["session.updated"])
    expect(close).toHaveBeenCalledTimes(1)
    expect(runtime.events.listenerCount()).toBe(0)
    const error = await rejection(runtime.session.get(session.id))
    expect(RuntimeClosedError.isInstance(error)).toBe(true)
    expect(RuntimeClosedError.isInstance(await rejection(runtime.session.create()))).toBe(true)
  })

  it("refuses options of the wrong shape, naming the option", () => {
    const error = (() => {
      try {
        createRuntime({ storage: {} as MemoryStorage })
      } catch (caught) {
        return caught
      }
    })()
    expect(InvalidInputError.isInstance(error)).toBe(true)
    expect((error as InvalidInputError).data.issues[0]?.path).toBe("storage")
  })

  it("refuses an askTimeoutMs that is not a positive whole number of milliseconds or Infinity", () => {
    for (const askTimeoutMs of [0, -1, 2.5, Number.NaN, Number.NEGATIVE_INFINITY, 2 ** 53]) {
      const error = (() => {
        try {
          createRuntime({ askTimeoutMs })
        } catch (caught) {
          return caught
        }
      })()
      expect(InvalidInputError.isInstance(error), String(askTimeoutMs)).toBe(true)
      expect((error as InvalidInputError).data.issues.map((issue) => issue.path)).toEqual(["askTimeoutMs"])
      expect((error as InvalidInputError).message).toContain(String(Number.MAX_SAFE_INTEGER))
    }
    expect(() => createRuntime({ askTimeoutMs: 2 ** 31 })).not.toThrow()
    expect(() => createRuntime({ askTimeoutMs: Number.POSITIVE_INFINITY })).not.toThrow()
  })

  it("uses memory storage and the working directory by default", async () => {
    const runtime = createRuntime()
    const session = await runtime.session.create()
    expect(session.directory).toBe(process.cwd())
    await runtime.close()
  })
})
