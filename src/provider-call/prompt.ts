import { MissingToolResultsError, type ModelMessage } from "ai"
import type {
  ProviderOptions,
  SpecApprovalResponsePart,
  SpecFilePart,
  SpecMessage,
  SpecTextPart,
  SpecToolResultOutput,
  SpecToolResultPart,
  SpecVersion,
} from "./types.js"

type ContentPart<M> = M extends { content: infer C } ? (C extends readonly (infer P)[] ? P : never) : never
type AssistantContent = ContentPart<Extract<ModelMessage, { role: "assistant" }>>
type ToolContent = ContentPart<Extract<ModelMessage, { role: "tool" }>>
type ToolOutput = Extract<AssistantContent, { type: "tool-result" }>["output"]

/**
 * One model message as the provider spec's message, the way the AI SDK's own conversion makes
 * it; undefined when only the SDK can convert it. Files are the difference between spec
 * versions (data, media-type detection, downloads): for v3 a file given as a data URL and a
 * tool result's inline file data convert here; every other file is left to `streamText`. Pure,
 * so a caller may keep the result.
 */
export function toSpecMessage(message: ModelMessage, version: SpecVersion): SpecMessage | undefined {
  const providerOptions = options(message.providerOptions)
  switch (message.role) {
    case "system":
      return { role: "system", content: message.content, ...providerOptions }
    case "user": {
      if (typeof message.content === "string")
        return { role: "user", content: [{ type: "text", text: message.content }], ...providerOptions }
      const content: (SpecTextPart | SpecFilePart)[] = []
      for (const part of message.content) {
        if (part.type === "file" && version === "v3") {
          const file = dataUrlFile(part)
          if (file === undefined) return undefined
          content.push(file)
          continue
        }
        if (part.type !== "text") return undefined
        if (part.text !== "")
          content.push({ type: "text", text: part.text, ...options(part.providerOptions) })
      }
      return { role: "user", content, ...providerOptions }
    }
    case "assistant": {
      if (typeof message.content === "string")
        return { role: "assistant", content: [{ type: "text", text: message.content }], ...providerOptions }
      const content: Extract<SpecMessage, { role: "assistant" }>["content"] = []
      for (const part of message.content) {
        const converted = assistantPart(part, version)
        if (converted === undefined) return undefined
        if (converted !== null) content.push(converted)
      }
      return { role: "assistant", content, ...providerOptions }
    }
    case "tool": {
      const content: (SpecToolResultPart | SpecApprovalResponsePart)[] = []
      for (const part of message.content) {
        const converted = toolPart(part, version)
        if (converted === undefined) return undefined
        if (converted !== null) content.push(converted)
      }
      return { role: "tool", content, ...providerOptions }
    }
  }
}

/**
 * A conversation's prompt so far, without the system message: messages merged and checked as
 * the AI SDK merges and checks them (consecutive tool messages become one; a tool call must be
 * answered before the next user message). Extending it with the messages that follow costs
 * only those; the state it extends is not changed, so an earlier call's prompt stays as sent.
 * `empty` counts its tool messages left empty (approvals only), which the prompt leaves out.
 */
export type PromptBody = { messages: readonly SpecMessage[]; open: ReadonlySet<string>; empty: number }

export const EMPTY_BODY: PromptBody = { messages: [], open: new Set(), empty: 0 }

export function extendBody(body: PromptBody, added: readonly SpecMessage[]): PromptBody {
  const messages = body.messages.slice()
  const open = new Set(body.open)
  let empty = body.empty
  // Merged tool messages are copies; one made by this call may be changed again.
  let merged: Extract<SpecMessage, { role: "tool" }> | undefined
  for (const message of added) {
    track(open, message)
    const last = messages.at(-1)
    if (message.role !== "tool" || last?.role !== "tool") {
      messages.push(message)
      if (isEmptyTool(message)) empty++
      continue
    }
    if (isEmptyTool(last)) empty--
    if (merged !== last) {
      merged = { ...last, content: [...last.content] }
      messages[messages.length - 1] = merged
    }
    const lastPart = merged.content.at(-1)
    if (lastPart !== undefined && merged.providerOptions !== undefined)
      merged.content[merged.content.length - 1] = {
        ...lastPart,
        providerOptions: mergeOptions(merged.providerOptions, partOptions(lastPart)),
      } as typeof lastPart
    merged.content.push(...message.content)
    merged.providerOptions = message.providerOptions
    if (isEmptyTool(merged)) empty++
  }
  return { messages, open, empty }
}

/** The prompt of one call: the system message, then the body, every tool call answered. */
export function assemblePrompt(system: string | undefined, body: PromptBody): SpecMessage[] {
  if (body.open.size > 0) throw new MissingToolResultsError({ toolCallIds: [...body.open] })
  const head: SpecMessage[] = system === undefined ? [] : [{ role: "system", content: system }]
  // Usually nothing to leave out: one native copy rather than a pass over the whole body.
  if (body.empty === 0) return head.concat(body.messages)
  for (const message of body.messages) if (!isEmptyTool(message)) head.push(message)
  return head
}

function isEmptyTool(message: SpecMessage): boolean {
  return message.role === "tool" && message.content.length === 0
}

/** Tool calls still unanswered after `message`; a user message with one open fails as in the SDK. */
function track(open: Set<string>, message: SpecMessage): void {
  if (message.role === "assistant") {
    for (const part of message.content)
      if (part.type === "tool-call" && !part.providerExecuted) open.add(part.toolCallId)
  } else if (message.role === "tool") {
    for (const part of message.content) if (part.type === "tool-result") open.delete(part.toolCallId)
  } else if (open.size > 0) throw new MissingToolResultsError({ toolCallIds: [...open] })
}

function assistantPart(
  part: AssistantContent,
  version: SpecVersion,
): Extract<SpecMessage, { role: "assistant" }>["content"][number] | null | undefined {
  const providerOptions = options((part as { providerOptions?: unknown }).providerOptions)
  switch (part.type) {
    case "text":
      // An empty text part without options says nothing; one with options may carry a signature.
      if (part.text === "" && part.providerOptions == null) return null
      return { type: "text", text: part.text, ...providerOptions }
    case "reasoning":
      return { type: "reasoning", text: part.text, ...providerOptions }
    case "tool-call":
      return {
        type: "tool-call",
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        input: part.input,
        ...(part.providerExecuted === undefined ? {} : { providerExecuted: part.providerExecuted }),
        ...providerOptions,
      }
    case "tool-result":
      return toolResult(part, version)
    default:
      // Approval requests are not sent back; files are left to the SDK.
      return (part as { type: string }).type === "tool-approval-request" ? null : undefined
  }
}

function toolPart(
  part: ToolContent,
  version: SpecVersion,
): SpecToolResultPart | SpecApprovalResponsePart | null | undefined {
  if (part.type === "tool-result") return toolResult(part, version)
  const response = part as { type: string; approvalId?: string; approved?: boolean; reason?: string }
  if (response.type !== "tool-approval-response") return undefined
  // Only a provider-executed tool's approval goes to the provider; ours were decided here.
  if ((part as { providerExecuted?: boolean }).providerExecuted !== true) return null
  return {
    type: "tool-approval-response",
    approvalId: response.approvalId ?? "",
    approved: response.approved === true,
    ...(response.reason === undefined ? {} : { reason: response.reason }),
  }
}

/** A tool result, in an assistant message (provider-executed) or a tool message. */
function toolResult(
  part: Extract<AssistantContent | ToolContent, { type: "tool-result" }>,
  version: SpecVersion,
) {
  const output = toolOutput(part.output, version)
  if (output === undefined) return undefined
  const result: SpecToolResultPart = {
    type: "tool-result",
    toolCallId: part.toolCallId,
    toolName: part.toolName,
    output,
    ...options(part.providerOptions),
  }
  return result
}

function toolOutput(output: ToolOutput, version: SpecVersion): SpecToolResultOutput | undefined {
  if (output.type !== "content") return output as SpecToolResultOutput
  // v3 takes a result's content as the SDK leaves it, once nothing in it is to be downloaded;
  // v4 changed the shape of files in results, which the SDK converts.
  const direct = output.value.every((item) =>
    version === "v3" ? item.type !== "image-url" && item.type !== "file-url" : item.type === "text",
  )
  return direct ? (output as SpecToolResultOutput) : undefined
}

type FileContent = Extract<ContentPart<Extract<ModelMessage, { role: "user" }>>, { type: "file" }>

/**
 * A v3 file part from a data URL, as `convertToLanguageModelV3DataContent` reads it: the URL's
 * media type wins, the payload after the comma is the data. Undefined for anything else (a URL
 * to fetch, raw bytes) and for a data URL the SDK would refuse: it says why.
 */
function dataUrlFile(part: FileContent): SpecFilePart | undefined {
  if (typeof part.data !== "string" || !part.data.startsWith("data:") || !URL.canParse(part.data))
    return undefined
  const [header, base64Content] = new URL(part.data).toString().split(",")
  const mediaType = header?.split(";")[0]?.split(":")[1]
  if (mediaType === undefined || base64Content === undefined) return undefined
  return {
    type: "file",
    mediaType,
    ...(part.filename === undefined ? {} : { filename: part.filename }),
    data: base64Content,
    ...options(part.providerOptions),
  }
}

function options(providerOptions: unknown): { providerOptions?: ProviderOptions } {
  return providerOptions == null ? {} : { providerOptions: providerOptions as ProviderOptions }
}

function partOptions(part: SpecToolResultPart | SpecApprovalResponsePart): ProviderOptions | undefined {
  return "providerOptions" in part ? part.providerOptions : undefined
}

function mergeOptions(base: ProviderOptions, overrides: ProviderOptions | undefined): ProviderOptions {
  if (overrides === undefined) return base
  const merged: ProviderOptions = { ...base }
  for (const [provider, values] of Object.entries(overrides))
    merged[provider] = { ...base[provider], ...values }
  return merged
}
