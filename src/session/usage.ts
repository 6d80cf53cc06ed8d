import type { LanguageModelUsage, ProviderMetadata } from "ai"
import { Decimal } from "decimal.js"
import type { Tokens } from "../message/part.js"
import type { ModelInfo } from "../provider/model-info.js"

/** `costUnknown`: the model had no prices, so `cost` is 0 without being free. */
export type Usage = { cost: number; tokens: Tokens; costUnknown?: true }

/** Prompts larger than this are billed at `cost.over200K` when the model has such prices. */
export const LONG_CONTEXT_THRESHOLD = 200_000

const PER_MILLION = 1_000_000

/**
 * Splits one step's usage into disjoint token counts and prices them in USD. The AI SDK's
 * `inputTokens` includes cache reads and writes and `outputTokens` (usually) includes reasoning,
 * so those are taken out to avoid charging them twice. Counts a provider got wrong (NaN, negative) become 0.
 * A model without prices costs 0 with `costUnknown: true`.
 */
export function getUsage(input: {
  model: ModelInfo
  usage: LanguageModelUsage
  metadata?: ProviderMetadata
}): Usage {
  const { model, usage, metadata } = input
  const cacheRead = count(usage.inputTokenDetails?.cacheReadTokens)
  const cacheWrite = count(usage.inputTokenDetails?.cacheWriteTokens ?? cacheWriteFromMetadata(metadata))
  const reasoning = count(usage.outputTokenDetails?.reasoningTokens)
  const output = count(usage.outputTokens)
  const tokens: Tokens = {
    input: Math.max(0, count(usage.inputTokens) - cacheRead - cacheWrite),
    output: reasoningBesideOutput(usage, reasoning) ? output : Math.max(0, output - reasoning),
    reasoning,
    cache: { read: cacheRead, write: cacheWrite },
  }

  if (!model.cost) return { cost: 0, tokens, costUnknown: true }
  // Long-context tiers (Anthropic, Gemini) look at the whole prompt, cached parts included.
  const prompt = tokens.input + tokens.cache.read + tokens.cache.write
  const prices = model.cost.over200K && prompt > LONG_CONTEXT_THRESHOLD ? model.cost.over200K : model.cost

  // Catalogs have no separate reasoning price; providers bill reasoning as output.
  const terms: [number, number][] = [
    [tokens.input, prices.input],
    [tokens.output, prices.output],
    [tokens.cache.read, prices.cache.read],
    [tokens.cache.write, prices.cache.write],
    [tokens.reasoning, prices.output],
  ]
  const charged = terms.filter(([count, price]) => count !== 0 && price !== 0)
  const cost = charged.length === 0 ? 0 : decimalCost(charged)

  return { cost: Number.isFinite(cost) && cost > 0 ? cost : 0, tokens }
}

/** The cost in decimal arithmetic: exact whatever the prices. Zero terms are left out beforehand. */
function decimalCost(terms: readonly [number, number][]): number {
  let sum = new Decimal(0)
  for (const [count, price] of terms) sum = sum.add(new Decimal(count).mul(price))
  return sum.div(PER_MILLION).toNumber()
}

/**
 * Most providers count reasoning inside the output tokens; some (xAI through the
 * OpenAI-compatible package) count it beside them, and the SDK's totals cannot tell the two
 * apart. Reasoning larger than the whole output cannot be inside it: then the output is the
 * visible answer alone, and subtracting would leave it uncounted and unbilled.
 */
function reasoningBesideOutput(usage: LanguageModelUsage, reasoning: number): boolean {
  return reasoning > count(usage.outputTokens)
}

// Providers whose SDK package predates `inputTokenDetails.cacheWriteTokens` report cache writes
// only in their metadata. Anthropic models on Vertex report them as Anthropic does, under `vertex`.
function cacheWriteFromMetadata(metadata: ProviderMetadata | undefined): number | undefined {
  return (
    numberAt(metadata, ["anthropic", "cacheCreationInputTokens"]) ??
    numberAt(metadata, ["vertex", "cacheCreationInputTokens"]) ??
    numberAt(metadata, ["bedrock", "usage", "cacheWriteInputTokens"]) ??
    numberAt(metadata, ["venice", "usage", "cacheCreationInputTokens"])
  )
}

function numberAt(value: unknown, path: string[]): number | undefined {
  let current = value
  for (const key of path) {
    if (typeof current !== "object" || current === null) return undefined
    current = (current as Record<string, unknown>)[key]
  }
  return typeof current === "number" ? current : undefined
}

function count(value: number | undefined): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0
}
