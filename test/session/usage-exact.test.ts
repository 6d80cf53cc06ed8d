import type { LanguageModelUsage } from "ai"
import { Decimal } from "decimal.js"
import { describe, expect, it } from "vitest"
import type { Provider } from "../../src/provider/index.js"
import { getUsage, LONG_CONTEXT_THRESHOLD } from "../../src/session/usage.js"
import { prng } from "../durability/prng.js"

type Prices = { input: number; output: number; cache: { read: number; write: number } }

/** The cost as getUsage has always computed it: every term in decimal.js, then one conversion. */
function decimalCost(
  tokens: ReturnType<typeof getUsage>["tokens"],
  cost: Provider.ModelInfo["cost"],
): number {
  if (!cost) return 0
  const prompt = tokens.input + tokens.cache.read + tokens.cache.write
  const prices = cost.over200K && prompt > LONG_CONTEXT_THRESHOLD ? cost.over200K : cost
  const terms: [number, number][] = [
    [tokens.input, prices.input],
    [tokens.output, prices.output],
    [tokens.cache.read, prices.cache.read],
    [tokens.cache.write, prices.cache.write],
    [tokens.reasoning, prices.output],
  ]
  let sum: Decimal | undefined
  for (const [count, price] of terms)
    if (count !== 0 && price !== 0) sum = (sum ?? new Decimal(0)).add(new Decimal(count).mul(price))
  const result = sum === undefined ? 0 : sum.div(1_000_000).toNumber()
  return Number.isFinite(result) && result > 0 ? result : 0
}

const EDGE_COUNTS = [
  0,
  1,
  7,
  999,
  200_000,
  200_001,
  1_000_000,
  123_456_789,
  2 ** 31,
  2 ** 40 + 3,
  2 ** 53 - 1,
  2 ** 53,
  2 ** 60,
  1e21,
  1.5,
  0.1,
  -5,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  undefined,
]

const EDGE_PRICES = [
  0,
  1,
  3,
  15,
  0.3,
  3.75,
  0.075,
  0.1,
  0.2,
  1.1,
  2.5e-7,
  1e-7,
  5e-324,
  1e-300,
  0.000123456789012345,
  123.456789012345,
  9007199254740991,
  1e21,
  1e300,
  Number.MAX_VALUE,
  1 / 3,
  Math.PI,
  -2,
]

function pick<T>(next: () => number, values: readonly T[]): T {
  return values[Math.floor(next() * values.length)]!
}

function count(next: () => number): number | undefined {
  const roll = next()
  if (roll < 0.3) return pick(next, EDGE_COUNTS)
  if (roll < 0.7) return Math.floor(next() * 10 ** Math.floor(next() * 10))
  if (roll < 0.9) return Math.floor(next() * 2 ** 53)
  return next() * 1e6
}

function price(next: () => number): number {
  const roll = next()
  if (roll < 0.4) return pick(next, EDGE_PRICES)
  // Prices with few decimals, as catalogues give them.
  if (roll < 0.7) return Math.round(next() * 10 ** Math.floor(next() * 8)) / 10 ** Math.floor(next() * 9)
  // Any double, with all its digits.
  if (roll < 0.85) return next() * 10 ** (Math.floor(next() * 30) - 15)
  return Number.parseFloat((next() * 100).toFixed(Math.floor(next() * 20)))
}

function prices(next: () => number): Prices {
  return { input: price(next), output: price(next), cache: { read: price(next), write: price(next) } }
}

function usage(next: () => number): LanguageModelUsage {
  return {
    inputTokens: count(next),
    inputTokenDetails: {
      noCacheTokens: undefined,
      cacheReadTokens: count(next),
      cacheWriteTokens: count(next),
    },
    outputTokens: count(next),
    outputTokenDetails: { textTokens: undefined, reasoningTokens: count(next) },
    totalTokens: undefined,
  }
}

const model = (cost: Provider.ModelInfo["cost"]): Provider.ModelInfo => ({
  providerID: "p",
  id: "m",
  name: "m",
  limit: { context: 1_000_000, output: 64_000 },
  ...(cost ? { cost } : {}),
  capabilities: { reasoning: true, toolcall: true, attachment: true, temperature: true },
})

describe("getUsage's cost", () => {
  it("is the decimal.js cost, to the last bit, for many random and edge inputs", () => {
    const next = prng(32)
    let priced = 0
    for (let index = 0; index < 20_000; index++) {
      const roll = next()
      const cost =
        roll < 0.05 ? undefined : roll < 0.3 ? { ...prices(next), over200K: prices(next) } : prices(next)
      const result = getUsage({ model: model(cost), usage: usage(next) })
      const expected = decimalCost(result.tokens, cost)
      if (!Object.is(result.cost, expected))
        throw new Error(
          `case ${index}: ${JSON.stringify({ cost, tokens: result.tokens })} gave ${result.cost}, not ${expected}`,
        )
      if (expected > 0) priced++
    }
    expect(priced).toBeGreaterThan(12_000)
  })

  it("is the decimal.js cost for every edge count against every edge price", () => {
    for (const tokens of EDGE_COUNTS)
      for (const input of EDGE_PRICES)
        for (const output of [0, 15, 0.3, 1 / 3]) {
          const cost = { input, output, cache: { read: input / 10, write: output } }
          const result = getUsage({
            model: model(cost),
            usage: {
              inputTokens: tokens,
              inputTokenDetails: {
                noCacheTokens: undefined,
                cacheReadTokens: 5,
                cacheWriteTokens: undefined,
              },
              outputTokens: tokens,
              outputTokenDetails: { textTokens: undefined, reasoningTokens: 3 },
              totalTokens: undefined,
            },
          })
          expect(Object.is(result.cost, decimalCost(result.tokens, cost))).toBe(true)
        }
  })
})
