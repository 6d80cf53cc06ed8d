import type { LanguageModelUsage } from "ai"

export type TelemetrySettings = { isEnabled?: boolean }

/** What a step reports to tracing; a no-op when telemetry is off. */
export type CallTelemetry = {
  /** Output text and tool calls are collected for the spans only when this is true. */
  recording: boolean
  firstChunk(): void
  finish(step: {
    finishReason: string
    usage: LanguageModelUsage
    response: { id: string; modelId: string; timestamp: Date }
    text: string
    toolCalls: { toolCallId: string; toolName: string; input: unknown }[]
    providerMetadata?: unknown
  }): void
  fail(error: unknown): void
  tool<T>(call: { toolCallId: string; toolName: string; input: unknown }, run: () => Promise<T>): Promise<T>
  end(): void
}

export function createCallTelemetry(_settings: TelemetrySettings | undefined, _call: unknown): CallTelemetry {
  return {
    recording: false,
    firstChunk() {},
    finish() {},
    fail() {},
    tool: (_call, run) => run(),
    end() {},
  }
}
