import type { DynamicToolUIPart, ToolResultPart } from "ai"
import type { FilePart, ToolPart } from "./part.js"
import { toProviderMetadata } from "./provider-metadata.js"

export type ToolResultOutput = ToolResultPart["output"]
type ContentItem = Extract<ToolResultOutput, { type: "content" }>["value"][number]

/** Sent instead of a tool output that compaction pruned. */
export const CLEARED_OUTPUT = "[Old tool result content cleared]"
/** Sent as the result of a call that never finished, so no call is left without a result. */
export const INTERRUPTED_OUTPUT = "[Tool execution was interrupted]"

export type ToolUIPartOptions = {
  /** The target model is the one that made the call: its provider metadata can be replayed. */
  sameModel: boolean
  /** The target model accepts files, so attachments go into the result. */
  attachments: boolean
}

/**
 * A tool part as the UI tool part `convertToModelMessages` turns into a tool call and its result.
 * `content` is set when the result carries files: the caller hands it to the SDK through a tool's
 * `toModelOutput`, keyed by the UI part's `output` object, because a plain output becomes text.
 */
export function toToolUIPart(
  part: ToolPart,
  options: ToolUIPartOptions,
): { uiPart: DynamicToolUIPart; content?: ToolResultOutput } {
  const callProviderMetadata = options.sameModel ? toProviderMetadata(part.metadata) : undefined
  const base = {
    type: "dynamic-tool" as const,
    toolName: part.tool,
    toolCallId: part.callID,
    input: part.state.input,
    ...(part.metadata?.providerExecuted === true ? { providerExecuted: true } : {}),
    ...(callProviderMetadata ? { callProviderMetadata } : {}),
  }
  const state = part.state
  switch (state.status) {
    case "completed": {
      const text = state.time.compacted ? CLEARED_OUTPUT : state.output
      const files =
        state.time.compacted || !options.attachments ? [] : (state.attachments ?? []).flatMap(toFileContent)
      if (files.length === 0)
        return { uiPart: { ...base, state: "output-available", output: structuredOutput(part) ?? text } }
      const content: ToolResultOutput = { type: "content", value: [{ type: "text", text }, ...files] }
      return { uiPart: { ...base, state: "output-available", output: content }, content }
    }
    case "error":
      return {
        uiPart: { ...base, state: "output-error", errorText: withPartialOutput(state.error, state.metadata) },
      }
    case "pending":
      return { uiPart: { ...base, state: "output-error", errorText: INTERRUPTED_OUTPUT } }
    case "running":
      return {
        uiPart: {
          ...base,
          state: "output-error",
          errorText: withPartialOutput(INTERRUPTED_OUTPUT, state.metadata),
        },
      }
  }
}

/**
 * The value the call returned, which the SDK sends as JSON (`{ type: "json" }`): while the
 * output is not pruned, and always for a provider-executed call, whose provider reads its own
 * result back and cannot take a placeholder.
 */
function structuredOutput(part: ToolPart): unknown {
  const { state } = part
  if (state.status !== "completed" || state.structured === undefined) return undefined
  if (state.time.compacted && part.metadata?.providerExecuted !== true) return undefined
  return state.structured
}

/**
 * What an interrupted call had already produced (a command's output so far, kept by the tool in
 * `metadata.output`) goes to the model with the error: it is often what the model needs next.
 */
function withPartialOutput(error: string, metadata: Record<string, unknown> | undefined): string {
  const output = metadata?.output
  if (typeof output !== "string" || output === "") return error
  return `${error}\n\nOutput before the interruption:\n${output}`
}

/**
 * An attachment as result content. Inline data goes as data; a web URL as a URL the provider or the
 * SDK can fetch; any other URL (a local path) is left out, as nothing on the other side can read it.
 * `file-data`/`file-url` are the shapes both ai 6 and ai 7 accept (ai 7 maps them to its `file`).
 */
function toFileContent(file: FilePart): ContentItem[] {
  if (file.url.startsWith("data:")) {
    const data = base64Payload(file.url)
    return data === undefined
      ? []
      : [{ type: "file-data", data, mediaType: file.mime, filename: file.filename }]
  }
  if (/^https?:\/\//i.test(file.url)) return [{ type: "file-url", url: file.url, mediaType: file.mime }]
  return []
}

function base64Payload(url: string): string | undefined {
  const comma = url.indexOf(",")
  if (comma === -1) return undefined
  const payload = url.slice(comma + 1)
  if (/;base64$/i.test(url.slice(0, comma))) return payload
  try {
    return Buffer.from(decodeURIComponent(payload), "utf8").toString("base64")
  } catch {
    // A malformed percent-encoding: the file cannot be read, so it is not sent.
    return undefined
  }
}
