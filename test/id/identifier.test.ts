import fc from "fast-check"
import { afterEach, describe, expect, it, vi } from "vitest"
import { Identifier, InvalidInputError } from "../../src/index.js"

afterEach(() => {
  vi.useRealTimers()
})

describe("Identifier", () => {
  it("prefixes IDs by kind", () => {
    expect(Identifier.ascending("session")).toMatch(/^ses_[0-9A-HJKMNP-TV-Z]{26}$/)
    expect(Identifier.ascending("message")).toMatch(/^msg_/)
    expect(Identifier.ascending("part")).toMatch(/^prt_/)
    expect(Identifier.descending("permission")).toMatch(/^per_/)
    expect(Identifier.descending("question")).toMatch(/^que_/)
  })

  it("makes 100,000 strictly increasing IDs in a tight loop", () => {
    const ids = Identifier.createGenerator()
    let previous = ids.ascending("message")
    let ordered = 0
    for (let index = 0; index < 100_000; index++) {
      const next = ids.ascending("message")
      if (next > previous) ordered++
      previous = next
    }
    expect(ordered).toBe(100_000)
  })

  it("makes strictly increasing IDs without a generator when each is floored on the last", () => {
    let previous = Identifier.ascending("part")
    let ordered = 0
    for (let index = 0; index < 10_000; index++) {
      const next = Identifier.ascending("part", previous)
      if (next > previous) ordered++
      previous = next
    }
    expect(ordered).toBe(10_000)
  })

  it("sorts descending IDs newest first", () => {
    const ids = Identifier.createGenerator()
    const made = Array.from({ length: 1000 }, () => ids.descending("session"))
    expect([...made].sort()).toEqual([...made].reverse())
  })

  it("orders descending IDs across milliseconds newest first", () => {
    vi.useFakeTimers({ now: new Date("2026-01-01T00:00:00Z") })
    const older = Identifier.descending("session")
    vi.setSystemTime(new Date("2026-01-01T00:00:01Z"))
    const newer = Identifier.descending("session")
    expect(newer < older).toBe(true)
  })

  it("still sorts after the previous ID when the clock steps backwards", () => {
    vi.useFakeTimers({ now: new Date("2026-06-01T12:00:00Z") })
    const ids = Identifier.createGenerator()
    const first = ids.ascending("message")
    const firstSession = ids.descending("session")
    vi.setSystemTime(new Date("2026-06-01T11:00:00Z"))
    expect(ids.ascending("message") > first).toBe(true)
    expect(ids.descending("session") < firstSession).toBe(true)
    expect(Identifier.ascending("message", first) > first).toBe(true)
    expect(Identifier.descending("session", firstSession) < firstSession).toBe(true)
  })

  it("makes an ID strictly after one written by another writer with a clock far ahead", () => {
    vi.useFakeTimers({ now: new Date("2030-01-01T00:00:00Z") })
    const fromTheFuture = Identifier.ascending("message")
    vi.setSystemTime(new Date("2026-01-01T00:00:00Z"))
    const ids = Identifier.createGenerator()
    const next = ids.ascending("message", fromTheFuture)
    expect(next > fromTheFuture).toBe(true)
    expect(Identifier.timestamp(next)).toBe(Identifier.timestamp(fromTheFuture))
  })

  it("carries into the next millisecond when the random part is exhausted", () => {
    const floor = "msg_01ARZ3NDEKZZZZZZZZZZZZZZZZ"
    vi.useFakeTimers({ now: Identifier.timestamp(floor) })
    const next = Identifier.ascending("message", floor)
    expect(next > floor).toBe(true)
    expect(Identifier.timestamp(next)).toBe(Identifier.timestamp(floor) + 1)
  })

  it("reads the creation time of ascending and descending IDs", () => {
    const now = Date.UTC(2026, 10, 22, 5, 50, 0, 123)
    vi.useFakeTimers({ now })
    expect(Identifier.timestamp(Identifier.ascending("message"))).toBe(now)
    expect(Identifier.timestamp(Identifier.descending("session"))).toBe(now)
  })

  it("rejects malformed IDs with an error naming the argument", () => {
    for (const bad of [
      "",
      "ses_",
      "nope",
      "xyz_01ARZ3NDEKTSV4RRFFQ69G5FAV",
      "ses_01ARZ3NDEKTSV4RRFFQ69G5FA!",
    ]) {
      expect(() => Identifier.timestamp(bad)).toThrow(InvalidInputError)
    }
    const error = (() => {
      try {
        Identifier.ascending("message", "msg_bad")
      } catch (caught) {
        return caught
      }
    })()
    expect(InvalidInputError.isInstance(error)).toBe(true)
    expect((error as InvalidInputError).data.issues[0]?.path).toBe("after")
    expect((error as InvalidInputError).message).toContain('"msg_bad"')
  })

  it("validates IDs of one kind with its schema", () => {
    const schema = Identifier.schema("message")
    expect(schema.safeParse(Identifier.ascending("message")).success).toBe(true)
    expect(schema.safeParse(Identifier.ascending("part")).success).toBe(false)
    expect(schema.safeParse("msg_short").success).toBe(false)
  })
})

describe("Identifier.createGenerator (property)", () => {
  it("orders IDs strictly for any sequence of clock readings, forwards or backwards", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 2 ** 40 }), { minLength: 1, maxLength: 200 }),
        (times) => {
          let index = 0
          const ids = Identifier.createGenerator(() => times[index++ % times.length]!)
          const ascending = times.map(() => ids.ascending("message"))
          const descending = times.map(() => ids.descending("session"))
          for (let i = 1; i < times.length; i++) {
            if (!(ascending[i]! > ascending[i - 1]!)) return false
            if (!(descending[i]! < descending[i - 1]!)) return false
          }
          return true
        },
      ),
    )
  })
})
