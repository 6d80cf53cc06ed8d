import type { MockLanguageModelV3 } from "ai/test"
import type { ScriptTools, ToolCallArgs, ToolCallOptions } from "./script-tools.js"

type StreamResult = Awaited<ReturnType<MockLanguageModelV3["doStream"]>>
/** A chunk of a model's stream, as the AI SDK's model specification defines it. */
export type StreamChunk = StreamResult["stream"] extends ReadableStream<infer Chunk> ? Chunk : never
/**
 * What a model call received, as the AI SDK's model specification passes it to `doStream`: the
 * prompt, tools and settings. A scripted model records one per call (`model.calls`), and a turn
 * given as a function gets it to decide what to play.
 */
export type CallOptions = Parameters<MockLanguageModelV3["doStream"]>[0]
type FinishReason = Extract<StreamChunk, { type: "finish" }>["finishReason"]["unified"]

/** One thing a scripted model does in a turn. Build them with `say`. */
export type ScriptStep =
  | { type: "text"; text: string; chunks: number }
  | { type: "reasoning"; text: string; chunks: number; metadata?: Record<string, Record<string, unknown>> }
  | { type: "tool-call"; toolName: string; input: unknown; id?: string; unavailable?: boolean }
  | { type: "usage"; input: number; output: number; reasoning: number; cacheRead: number; cacheWrite: number }
  | { type: "finish"; reason: FinishReason }
  | { type: "error"; error: unknown }
  | { type: "delay"; ms: number }
  | { type: "chunk"; chunk: StreamChunk }

/** What the model does on one call: steps to stream, an error to throw before streaming, or a function of the call. */
export type Turn =
  | ScriptStep[]
  | { throws: unknown }
  | ((call: CallOptions) => ScriptStep[] | { throws: unknown })

/** Builders for the steps of a scripted turn. */
export const say = {
  /** Text, streamed in `chunks` deltas of about equal size. */
  text: (text: string, options: { chunks?: number } = {}): ScriptStep => ({
    type: "text",
    text,
    chunks: options.chunks ?? 1,
  }),
  reasoning: (
    text: string,
    options: { chunks?: number; metadata?: Record<string, Record<string, unknown>> } = {},
  ): ScriptStep => ({
    type: "reasoning",
    text,
    chunks: options.chunks ?? 1,
    ...(options.metadata ? { metadata: options.metadata } : {}),
  }),
  /**
   * A tool call whose input streams as JSON before the call itself. Untyped by default; typed
   * from a runtime's tools with `say.toolCall<typeof tools>(...)`, `scriptFor(tools)`, or the
   * `say` that createTestRuntime passes to a `turns` function (only the types differ).
   */
  toolCall: toolCallStep as <Tools = undefined>(...args: ToolCallArgs<Tools>) => ScriptStep,
  /** The token usage reported at the end of the turn. */
  usage: (usage: {
    input?: number
    output?: number
    reasoning?: number
    cacheRead?: number
    cacheWrite?: number
  }): ScriptStep => ({
    type: "usage",
    input: usage.input ?? 0,
    output: usage.output ?? 0,
    reasoning: usage.reasoning ?? 0,
    cacheRead: usage.cacheRead ?? 0,
    cacheWrite: usage.cacheWrite ?? 0,
  }),
  /** How the turn finished; default "tool-calls" when it called a tool, else "stop". */
  finish: (reason: FinishReason): ScriptStep => ({ type: "finish", reason }),
  /** A provider error in the middle of the stream. */
  error: (error: unknown): ScriptStep => ({ type: "error", error }),
  /** A pause before the next step (honours the call's abort signal; use fake timers in tests). */
  delay: (ms: number): ScriptStep => ({ type: "delay", ms }),
  /** Any raw chunk of the model specification. */
  chunk: (chunk: StreamChunk): ScriptStep => ({ type: "chunk", chunk }),
}

/** `say`, with `toolCall` typed from `Tools` (see `ToolCallArgs`). */
export type Say<Tools = undefined> = Omit<typeof say, "toolCall"> & {
  toolCall(...args: ToolCallArgs<Tools>): ScriptStep
}

/**
 * `say` typed from `tools`, for scripts written outside createTestRuntime's `turns`:
 * `scriptFor([refund, lookup]).toolCall("refund", { orderID: "1" })`. Only the types differ.
 */
export function scriptFor<Tools extends ScriptTools>(_tools: Tools): Say<Tools> {
  return say
}

function toolCallStep(toolName: string, input: unknown, options: ToolCallOptions = {}): ScriptStep {
  return {
    type: "tool-call",
    toolName,
    input,
    ...(options.id ? { id: options.id } : {}),
    ...(options.unavailable ? { unavailable: true } : {}),
  }
}

/** The chunks one step streams; `index` keeps ids unique within a turn. */
export function chunksOf(step: ScriptStep, index: number): StreamChunk[] {
  switch (step.type) {
    case "text":
    case "reasoning": {
      const id = `${step.type}-${index}`
      const kind = step.type
      const metadata = step.type === "reasoning" && step.metadata ? { providerMetadata: step.metadata } : {}
      return [
        { type: `${kind}-start`, id, ...metadata },
        ...split(step.text, step.chunks).map((delta) => ({ type: `${kind}-delta` as const, id, delta })),
        { type: `${kind}-end`, id, ...metadata },
      ] as StreamChunk[]
    }
    case "tool-call": {
      const id = step.id ?? `call-${index}`
      const json = JSON.stringify(step.input)
      return [
        { type: "tool-input-start", id, toolName: step.toolName },
        { type: "tool-input-delta", id, delta: json },
        { type: "tool-input-end", id },
        { type: "tool-call", toolCallId: id, toolName: step.toolName, input: json },
      ]
    }
    case "error":
      return [{ type: "error", error: step.error }]
    case "chunk":
      return [step.chunk]
    default:
      return []
  }
}

export function finishChunk(steps: readonly ScriptStep[]): StreamChunk {
  const usage = steps.findLast((step) => step.type === "usage")
  const finish = steps.findLast((step) => step.type === "finish")
  const calledTool = steps.some((step) => step.type === "tool-call")
  const unified: FinishReason = finish?.type === "finish" ? finish.reason : calledTool ? "tool-calls" : "stop"
  const counts =
    usage?.type === "usage" ? usage : { input: 0, output: 0, reasoning: 0, cacheRead: 0, cacheWrite: 0 }
  return {
    type: "finish",
    finishReason: { unified, raw: unified },
    usage: {
      inputTokens: {
        total: counts.input,
        noCache: Math.max(0, counts.input - counts.cacheRead - counts.cacheWrite),
        cacheRead: counts.cacheRead,
        cacheWrite: counts.cacheWrite,
      },
      outputTokens: {
        total: counts.output,
        text: counts.output - counts.reasoning,
        reasoning: counts.reasoning,
      },
    },
  }
}

function split(text: string, chunks: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, chunks)))
  const pieces: string[] = []
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size))
  return pieces.length > 0 ? pieces : [""]
}
