/**
 * The part of the AI SDK's language model specification this package speaks directly: text,
 * reasoning, tool calls and their results. Versions v3 (ai 6's providers) and v4 (ai 7's) agree
 * on all of it; they differ in files, which go through `streamText` instead. Written out here,
 * not imported, because the spec package is the SDK's dependency, not ours, and its version
 * follows whichever `ai` the host installed.
 */

export type ProviderOptions = Record<string, Record<string, unknown>>
export type ProviderMetadata = Record<string, Record<string, unknown>>

export type SpecVersion = "v3" | "v4"

export type SpecTextPart = { type: "text"; text: string; providerOptions?: ProviderOptions }
/** A v3 file part with its data inline (base64); v4 wraps data differently. */
export type SpecFilePart = {
  type: "file"
  mediaType: string
  filename?: string
  data: string
  providerOptions?: ProviderOptions
}
type SpecReasoningPart = { type: "reasoning"; text: string; providerOptions?: ProviderOptions }
type SpecToolCallPart = {
  type: "tool-call"
  toolCallId: string
  toolName: string
  input: unknown
  providerExecuted?: boolean
  providerOptions?: ProviderOptions
}
export type SpecToolResultOutput =
  | { type: "text" | "error-text"; value: string; providerOptions?: ProviderOptions }
  | { type: "json" | "error-json"; value: unknown; providerOptions?: ProviderOptions }
  | { type: "execution-denied"; reason?: string; providerOptions?: ProviderOptions }
  | { type: "content"; value: ({ type: string } & Record<string, unknown>)[] }
export type SpecToolResultPart = {
  type: "tool-result"
  toolCallId: string
  toolName: string
  output: SpecToolResultOutput
  providerOptions?: ProviderOptions
}
export type SpecApprovalResponsePart = {
  type: "tool-approval-response"
  approvalId: string
  approved: boolean
  reason?: string
}

export type SpecMessage = (
  | { role: "system"; content: string }
  | { role: "user"; content: (SpecTextPart | SpecFilePart)[] }
  | {
      role: "assistant"
      content: (SpecTextPart | SpecReasoningPart | SpecToolCallPart | SpecToolResultPart)[]
    }
  | { role: "tool"; content: (SpecToolResultPart | SpecApprovalResponsePart)[] }
) & { providerOptions?: ProviderOptions }

export type SpecTool =
  | {
      type: "function"
      name: string
      description?: string
      inputSchema: unknown
      providerOptions?: ProviderOptions
    }
  | { type: "provider"; id: string; name: string; args: Record<string, unknown> }

export type SpecToolChoice = { type: "auto" | "none" | "required" } | { type: "tool"; toolName: string }

type SpecCallOptions = {
  prompt: SpecMessage[]
  maxOutputTokens?: number
  temperature?: number
  topP?: number
  tools?: SpecTool[]
  toolChoice?: SpecToolChoice
  includeRawChunks?: boolean
  abortSignal?: AbortSignal
  headers?: Record<string, string | undefined>
  providerOptions?: ProviderOptions
}

export type SpecUsage = {
  inputTokens: {
    total: number | undefined
    noCache: number | undefined
    cacheRead: number | undefined
    cacheWrite: number | undefined
  }
  outputTokens: { total: number | undefined; text: number | undefined; reasoning: number | undefined }
  raw?: Record<string, unknown>
}

type WithMetadata = { providerMetadata?: ProviderMetadata }

/** Stream parts; anything else a newer spec adds (files, sources, pings) is read and dropped. */
export type SpecStreamPart =
  | ({ type: "text-start" | "text-end" | "reasoning-start" | "reasoning-end"; id: string } & WithMetadata)
  | ({ type: "text-delta" | "reasoning-delta"; id: string; delta: string } & WithMetadata)
  | ({
      type: "tool-input-start"
      id: string
      toolName: string
      providerExecuted?: boolean
      dynamic?: boolean
      title?: string
    } & WithMetadata)
  | ({ type: "tool-input-delta"; id: string; delta: string } & WithMetadata)
  | ({ type: "tool-input-end"; id: string } & WithMetadata)
  | ({
      type: "tool-call"
      toolCallId: string
      toolName: string
      input: string
      providerExecuted?: boolean
      dynamic?: boolean
    } & WithMetadata)
  | ({
      type: "tool-result"
      toolCallId: string
      toolName: string
      result: unknown
      isError?: boolean
      dynamic?: boolean
    } & WithMetadata)
  | { type: "stream-start"; warnings: unknown[] }
  | { type: "response-metadata"; id?: string; timestamp?: Date; modelId?: string }
  | ({
      type: "finish"
      usage: SpecUsage
      finishReason: { unified: string; raw: string | undefined }
    } & WithMetadata)
  | { type: "error"; error: unknown }
  | { type: "other" }

export type SpecStreamResult = {
  stream: ReadableStream<SpecStreamPart>
  request?: { body?: unknown }
  response?: { headers?: Record<string, string> }
}

/** A provider's language model of a spec version this package calls directly. */
type SpecModel = {
  readonly specificationVersion: SpecVersion
  readonly provider: string
  readonly modelId: string
  readonly supportedUrls: unknown
  doStream(options: SpecCallOptions): PromiseLike<SpecStreamResult>
}

const DIRECT_VERSIONS: ReadonlySet<unknown> = new Set(["v3", "v4"])

/** Whether `model` is an object of a spec version this package calls directly. */
export function isSpecModel(model: unknown): model is SpecModel {
  return (
    typeof model === "object" &&
    model !== null &&
    DIRECT_VERSIONS.has((model as { specificationVersion?: unknown }).specificationVersion) &&
    typeof (model as { doStream?: unknown }).doStream === "function"
  )
}
