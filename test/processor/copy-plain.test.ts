import { describe, expect, test } from "vitest"
import { copyPlain } from "../../src/util/copy-plain.js"

const part = {
  id: "prt_1",
  type: "tool",
  state: {
    status: "completed",
    input: { n: 3, list: [1, "two", null, { deep: [true] }], missing: undefined },
    metadata: Object.assign(Object.create(null), { kept: 1 }),
    time: { start: 1, end: -0 },
  },
  big: 10n,
}

class Metadata {
  constructor(readonly exit = 0) {}
  get doubled() {
    return this.exit * 2
  }
}

describe("copyPlain", () => {
  test("copies a tree of plain objects and arrays as structuredClone does, sharing nothing", () => {
    const copied = copyPlain(part)
    expect(copied).toStrictEqual(structuredClone(part))
    expect(Object.getPrototypeOf(copied.state.metadata)).toBe(Object.prototype)
    expect(Object.hasOwn(copied.state.input, "missing")).toBe(true)
    expect(Object.is(copied.state.time.end, -0)).toBe(true)
    expect(copied.state).not.toBe(part.state)
    expect(copied.state.input.list[3]).not.toBe(part.state.input.list[3])
    copied.state.input.list.push(4)
    expect(part.state.input.list).toHaveLength(4)
  })

  test("leaves anything but plain data to structuredClone, and gives its result", () => {
    const sparse = [1, 2, 3]
    delete sparse[1]
    const cyclic: Record<string, unknown> = { name: "loop" }
    cyclic.self = cyclic
    const values = [
      { metadata: new Metadata(3) },
      { at: new Date(5), seen: new Map([["a", 1]]), bytes: new Uint8Array([1, 2]) },
      { list: sparse },
      cyclic,
      JSON.parse('{"__proto__": {"polluted": true}, "kept": 1}'),
    ]
    for (const value of values) {
      const copied = copyPlain(value)
      expect(copied).toStrictEqual(structuredClone(value))
      expect(copied).not.toBe(value)
    }
    const copiedCycle = copyPlain(cyclic)
    expect(copiedCycle.self).toBe(copiedCycle)
    const fromClass = copyPlain({ metadata: new Metadata(3) }).metadata
    expect(Object.getPrototypeOf(fromClass)).toBe(Object.prototype)
    expect(fromClass).toStrictEqual({ exit: 3 })
  })

  test("throws structuredClone's error for what it cannot copy", () => {
    for (const value of [{ run: () => 1 }, { tag: Symbol("x") }, [Symbol.iterator]])
      expect(() => copyPlain(value)).toThrow(expect.objectContaining({ name: "DataCloneError" }))
  })

  test("copies nesting deeper than its own walk through structuredClone", () => {
    let deep: Record<string, unknown> = { leaf: true }
    for (let level = 0; level < 200; level++) deep = { next: deep }
    expect(copyPlain(deep)).toStrictEqual(deep)
  })
})
