import { describe, expect, it } from "vitest"
import { SortedMap } from "../../src/storage/sorted-map.js"

describe("SortedMap", () => {
  it("keeps its keys in string order whatever order they arrive and leave in", () => {
    const map = new SortedMap<number>()
    const keys = Array.from(
      { length: 200 },
      (_, index) => `k${String((index * 7919) % 200).padStart(3, "0")}`,
    )
    for (const [index, key] of keys.entries()) map.set(key, index)
    map.set("k005", -1)
    for (const key of keys.filter((_, index) => index % 3 === 0)) expect(map.delete(key)).toBe(true)
    expect(map.delete("absent")).toBe(false)
    const expected = keys.filter((_, index) => index % 3 !== 0).sort()
    expect(map.keys()).toEqual(expected)
    expect(map.keys(3)).toEqual(expected.slice(-3))
    expect(map.keys(0)).toEqual([])
    expect(map.keys(1_000)).toEqual(expected)
    expect(map.get("k005")).toBe(keys.includes("k005") && keys.indexOf("k005") % 3 === 0 ? undefined : -1)
  })
})
