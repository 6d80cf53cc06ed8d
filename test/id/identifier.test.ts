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

  it("makes 1,000 unique, increasing IDs from one generator floored on the same ID in its millisecond", () => {
    const floor = Identifier.ascending("message")
    vi.useFakeTimers({ now: Identifier.timestamp(floor) })
    const ids = Identifier.createGenerator()
    expectIncreasingAfter(
      floor,
      Array.from({ length: 1_000 }, () => ids.ascending("message", floor)),
    )
  })

  it("makes 1,000 unique, increasing IDs from one generator floored on an ID from the future", () => {
    vi.useFakeTimers({ now: new Date("2030-01-01T00:00:00Z") })
    const floor = Identifier.ascending("message")
    vi.setSystemTime(new Date("2026-01-01T00:00:00Z"))
    const ids = Identifier.createGenerator()
    expectIncreasingAfter(
      floor,
      Array.from({ length: 1_000 }, () => ids.ascending("message", floor)),
    )
  })

  it("makes 1,000 unique, increasing IDs from one generator floored on another generator's ID", () => {
    const floor = Identifier.createGenerator().ascending("message")
    vi.useFakeTimers({ now: Identifier.timestamp(floor) })
    const ids = Identifier.createGenerator()
    expectIncreasingAfter(
      floor,
      Array.from({ length: 1_000 }, () => ids.ascending("message", floor)),
    )
  })

  it("makes distinct IDs when two generators floor on the same ID in the same millisecond", () => {
    const floor = Identifier.ascending("message")
    vi.useFakeTimers({ now: Identifier.timestamp(floor) })
    const made = Array.from({ length: 1_000 }, () => Identifier.createGenerator().ascending("message", floor))
    expect(new Set(made).size).toBe(1_000)
    expect(made.every((id) => id > floor)).toBe(true)
  })

  it("makes 1,000 distinct IDs after the same floor without a generator, in its millisecond or from the future", () => {
    vi.useFakeTimers({ now: new Date("2030-01-01T00:00:00Z") })
    const future = { after: Identifier.ascending("message"), before: Identifier.descending("session") }
    vi.setSystemTime(new Date("2026-01-01T00:00:00Z"))
    const present = { after: Identifier.ascending("message"), before: Identifier.descending("session") }
    for (const { after, before } of [present, future]) {
      const later = Array.from({ length: 1_000 }, () => Identifier.ascending("message", after))
      expect(new Set(later).size).toBe(1_000)
      expect(later.every((id) => id > after)).toBe(true)
      const earlier = Array.from({ length: 1_000 }, () => Identifier.descending("session", before))
      expect(new Set(earlier).size).toBe(1_000)
      expect(earlier.every((id) => id < before)).toBe(true)
    }
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
      // Base-32 throughout, but neither direction: an ascending time starts 0-7, a descending R-Z.
      "ses_8ZZZZZZZZZZZZZZZZZZZZZZZZZ",
      "msg_Q0000000000000000000000000",
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

/** Each ID sorts strictly after `floor` and after the one made before it (so all are distinct). */
function expectIncreasingAfter(floor: string, made: string[]) {
  let previous = floor
  let ordered = 0
  for (const id of made) {
    if (id > previous) ordered++
    previous = id
  }
  expect(ordered).toBe(made.length)
  expect(new Set(made).size).toBe(made.length)
}

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

describe("Identifier with a value that is not an ID", () => {
  it("refuses a BigInt or a huge string with InvalidInputError, quoting it short", () => {
    expect(() => Identifier.ascending("message", 10n as unknown as string)).toThrow(InvalidInputError)
    const huge = `msg_${"x".repeat(100_000)}`
    const error = (() => {
      try {
        Identifier.timestamp(huge)
      } catch (caught) {
        return caught as InvalidInputError
      }
    })()
    expect(InvalidInputError.isInstance(error)).toBe(true)
    expect(error?.message.length).toBeLessThan(300)
  })
})
