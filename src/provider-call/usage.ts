import type { LanguageModelUsage } from "ai"
import type { SpecUsage } from "./types.js"

/** The spec's usage as the AI SDK reports it to callers (`finish-step`'s `usage`). */
export function toUsage(usage: SpecUsage): LanguageModelUsage {
  const { inputTokens: input, outputTokens: output } = usage
  return {
    inputTokens: input.total,
    inputTokenDetails: {
      noCacheTokens: input.noCache,
      cacheReadTokens: input.cacheRead,
      cacheWriteTokens: input.cacheWrite,
    },
    outputTokens: output.total,
    outputTokenDetails: { textTokens: output.text, reasoningTokens: output.reasoning },
    totalTokens:
      input.total == null && output.total == null ? undefined : (input.total ?? 0) + (output.total ?? 0),
    ...(usage.raw === undefined ? {} : { raw: usage.raw }),
    reasoningTokens: output.reasoning,
    cachedInputTokens: input.cacheRead,
  } as LanguageModelUsage
}

/** Usage of a step that never finished. */
export function noUsage(): LanguageModelUsage {
  return toUsage({
    inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: undefined, text: undefined, reasoning: undefined },
  })
}
