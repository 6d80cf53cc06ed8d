import { describe, expect, it } from "vitest"
import { Compaction } from "../../src/index.js"

const tokens = (input: number, output = 0, cache: { read?: number; write?: number } = {}) => ({
  input,
  output,
  cache: { read: cache.read ?? 0, write: cache.write ?? 0 },
})
const model = (limit: { context: number; input?: number; output: number }) => ({ limit })

describe("Compaction.usable", () => {
  it("leaves the output reserve free on a context-limited model", () => {
    expect(Compaction.usable(model({ context: 100_000, output: 32_000 }))).toBe(68_000)
    expect(Compaction.usable(model({ context: 200_000, output: 8_000 }))).toBe(192_000)
  })

  it("caps the output reserve at 32,000 and uses 32,000 when the output limit is unknown", () => {
    expect(Compaction.usable(model({ context: 400_000, output: 128_000 }))).toBe(368_000)
    expect(Compaction.usable(model({ context: 100_000, output: 0 }))).toBe(68_000)
  })

  it("takes the input limit minus the reserve when the model has one", () => {
    // reserved = min(20,000, min(output, 32,000))
    expect(Compaction.usable(model({ context: 400_000, input: 272_000, output: 128_000 }))).toBe(252_000)
    expect(Compaction.usable(model({ context: 400_000, input: 272_000, output: 8_000 }))).toBe(264_000)
    expect(
      Compaction.usable(model({ context: 400_000, input: 272_000, output: 128_000 }), { reserved: 50_000 }),
    ).toBe(222_000)
  })
})

describe("Compaction.isOverflow", () => {
  it("context 100K, output 32K: 75K in + 5K out overflows", () => {
    const limits = model({ context: 100_000, output: 32_000 })
    expect(Compaction.isOverflow({ tokens: tokens(75_000, 5_000), model: limits })).toBe(true)
  })

  it("context 200K, output 32K: 110K does not", () => {
    const limits = model({ context: 200_000, output: 32_000 })
    expect(Compaction.isOverflow({ tokens: tokens(110_000), model: limits })).toBe(false)
  })

  it("overflows exactly at the usable window, not one token below", () => {
    const limits = model({ context: 100_000, output: 32_000 })
    expect(Compaction.isOverflow({ tokens: tokens(68_000), model: limits })).toBe(true)
    expect(Compaction.isOverflow({ tokens: tokens(67_999), model: limits })).toBe(false)
  })

  it("measures input-limited models against their input limit, both ways", () => {
    const limits = model({ context: 400_000, input: 272_000, output: 128_000 })
    expect(Compaction.isOverflow({ tokens: tokens(250_000, 2_000), model: limits })).toBe(true)
    expect(Compaction.isOverflow({ tokens: tokens(240_000, 2_000), model: limits })).toBe(false)
    // 300K would fit the context minus output (368K) but not the input limit.
    expect(Compaction.isOverflow({ tokens: tokens(300_000), model: limits })).toBe(true)
  })

  it("counts cache reads and writes", () => {
    const limits = model({ context: 200_000, output: 32_000 })
    expect(Compaction.isOverflow({ tokens: tokens(10_000, 1_000, { read: 150_000 }), model: limits })).toBe(
      false,
    )
    expect(Compaction.isOverflow({ tokens: tokens(10_000, 1_000, { read: 157_000 }), model: limits })).toBe(
      true,
    )
    expect(
      Compaction.isOverflow({
        tokens: tokens(10_000, 1_000, { read: 100_000, write: 57_000 }),
        model: limits,
      }),
    ).toBe(true)
  })

  it("never overflows when the context is unknown or automatic compaction is off", () => {
    expect(
      Compaction.isOverflow({ tokens: tokens(5_000_000), model: model({ context: 0, output: 0 }) }),
    ).toBe(false)
    const limits = model({ context: 100_000, output: 32_000 })
    expect(Compaction.isOverflow({ tokens: tokens(99_000), model: limits, config: { auto: false } })).toBe(
      false,
    )
  })
})

describe("Compaction.tailBudget", () => {
  it("is a quarter of the usable window, clamped to 2,000-8,000", () => {
    expect(Compaction.tailBudget(model({ context: 40_000, output: 8_000 }))).toBe(8_000)
    expect(Compaction.tailBudget(model({ context: 24_000, output: 4_000 }))).toBe(5_000)
    expect(Compaction.tailBudget(model({ context: 8_000, output: 4_000 }))).toBe(2_000)
    expect(Compaction.tailBudget(model({ context: 200_000, output: 32_000 }))).toBe(8_000)
    expect(
      Compaction.tailBudget(model({ context: 200_000, output: 32_000 }), { preserveRecentTokens: 500 }),
    ).toBe(500)
  })
})
