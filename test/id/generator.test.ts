import { randomFillSync } from "node:crypto"
import { describe, expect, it } from "vitest"
import { Identifier, InvalidInputError } from "../../src/index.js"

const FORMAT = /^msg_[0-9A-HJKMNP-TV-Z]{26}$/
const SESSION_FORMAT = /^ses_[R-Z][0-9A-HJKMNP-TV-Z]{25}$/

/** A random source that counts its calls and the bytes it was asked for. */
function countingFill() {
  const calls: number[] = []
  const fill = (bytes: Uint8Array) => {
    calls.push(bytes.length)
    return randomFillSync(bytes)
  }
  return { fill, calls }
}

describe("Identifier.createGenerator with a buffered random source", () => {
  it("makes 100,000 well-formed, unique, strictly increasing IDs, already in sorted order", () => {
    const ids = Identifier.createGenerator()
    const made = Array.from({ length: 100_000 }, () => ids.ascending("message"))
    expect(made.every((id) => FORMAT.test(id))).toBe(true)
    expect(new Set(made).size).toBe(made.length)
    expect(made.every((id, index) => index === 0 || id > made[index - 1]!)).toBe(true)
    expect([...made].sort()).toEqual(made)
  })

  it("makes 100,000 well-formed, unique descending IDs, newest first", () => {
    const ids = Identifier.createGenerator()
    const made = Array.from({ length: 100_000 }, () => ids.descending("session"))
    expect(made.every((id) => SESSION_FORMAT.test(id))).toBe(true)
    expect(new Set(made).size).toBe(made.length)
    expect([...made].sort()).toEqual([...made].reverse())
  })

  it("stays monotonic and unique with a new millisecond on every call, and when the clock goes back", () => {
    let time = 1_700_000_000_000
    const forward = Identifier.createGenerator(() => time++)
    const stepping = Array.from({ length: 10_000 }, () => forward.ascending("part"))
    expect(new Set(stepping).size).toBe(stepping.length)
    expect([...stepping].sort()).toEqual(stepping)
    expect(Identifier.timestamp(stepping[9_999]!)).toBe(1_700_000_000_000 + 9_999)

    let backwards = 1_800_000_000_000
    const falling = Identifier.createGenerator(() => backwards--)
    const made = Array.from({ length: 10_000 }, () => falling.ascending("part"))
    expect(new Set(made).size).toBe(made.length)
    expect([...made].sort()).toEqual(made)
    // Every ID stays in the first millisecond it saw, stepping its random part up.
    expect(Identifier.timestamp(made[9_999]!)).toBe(1_800_000_000_000)
  })

  it("reads the system's random source in 4 KiB batches, not once per ID", () => {
    let time = 1_700_000_000_000
    const { fill, calls } = countingFill()
    const ids = Identifier.createGenerator(() => time++, fill)
    expect(calls).toEqual([]) // nothing is drawn before the first ID
    // A fresh random part takes 16 bytes: 256 IDs per 4,096-byte batch.
    for (let index = 0; index < 1_000; index++) ids.ascending("message")
    expect(calls).toEqual([4096, 4096, 4096, 4096])
  })

  it("keeps one buffer per generator, so two generators never hand out the same bits", () => {
    const time = () => 1_700_000_000_000
    const a = Identifier.createGenerator(time)
    const b = Identifier.createGenerator(time)
    const fromA = Array.from({ length: 1_000 }, () => a.ascending("message"))
    const fromB = Array.from({ length: 1_000 }, () => b.ascending("message"))
    expect(new Set([...fromA, ...fromB]).size).toBe(2_000)
  })

  it("uses the random bytes it is given: the low 5 bits of each byte are one base-32 digit", () => {
    const zeros = Identifier.createGenerator(
      () => 0,
      (bytes) => bytes.fill(0),
    )
    expect(zeros.ascending("message")).toBe(`msg_${"0".repeat(26)}`)
    // The next ID in the same millisecond steps the random part up by 1 + (a 40-bit draw of 0).
    expect(zeros.ascending("message")).toBe(`msg_${"0".repeat(25)}1`)

    const ones = Identifier.createGenerator(
      () => 1,
      (bytes) => bytes.fill(0xff),
    )
    expect(ones.ascending("message")).toBe(`msg_${"0".repeat(9)}1${"Z".repeat(16)}`)
  })

  it("steps by 1 + a 40-bit draw and carries across digits, moving to the next millisecond when 80 bits run out", () => {
    // All draws are 31: a step is 1 + (2^40 - 1) = 2^40, which adds 1 to the 9th digit from the end.
    const ids = Identifier.createGenerator(
      () => 5,
      (bytes) => bytes.fill(31),
    )
    const first = ids.ascending("message")
    expect(first).toBe(`msg_${"0".repeat(9)}5${"Z".repeat(16)}`)
    // ZZZZZZZZZZZZZZZZ + 2^40 overflows 80 bits: the next millisecond, with a fresh random part.
    const second = ids.ascending("message")
    expect(second).toBe(`msg_${"0".repeat(9)}6${"Z".repeat(16)}`)

    const stepped = Identifier.createGenerator(
      () => 6,
      (bytes) => bytes.fill(31),
    ).ascending("message", `msg_${"0".repeat(9)}6${"0".repeat(16)}`)
    expect(stepped).toBe(`msg_${"0".repeat(9)}6${"0".repeat(7)}1${"0".repeat(8)}`)
  })

  it("floors on another writer's ID: strictly after it, in its millisecond when the clock is behind", () => {
    const floor = "msg_01ARZ3NDEKTSV4RRFFQ69G5FAV"
    const ids = Identifier.createGenerator(() => Identifier.timestamp(floor) - 10)
    const made = Array.from({ length: 1_000 }, () => ids.ascending("message", floor))
    expect(made.every((id) => id > floor && Identifier.timestamp(id) === Identifier.timestamp(floor))).toBe(
      true,
    )
    expect([...made].sort()).toEqual(made)
    expect(new Set(made).size).toBe(1_000)
  })

  it("refuses a clock reading a ULID cannot hold, and a floor of the other direction", () => {
    for (const reading of [-1, 1.5, 2 ** 48, Number.NaN]) {
      expect(() => Identifier.createGenerator(() => reading).ascending("message")).toThrow(InvalidInputError)
    }
    const ids = Identifier.createGenerator()
    const session = ids.descending("session")
    const message = ids.ascending("message")
    expect(() => ids.ascending("message", session)).toThrow(InvalidInputError)
    expect(() => ids.descending("session", message)).toThrow(InvalidInputError)
    expect(() => Identifier.ascending("message", session)).toThrow(InvalidInputError)
  })
})
