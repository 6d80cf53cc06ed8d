import { convertToModelMessages, jsonSchema, type ModelMessage, type ToolSet, tool, type UIMessage } from "ai"
import type { Assistant, WithParts } from "./info.js"
import type { Part, SubtaskPart } from "./part.js"
import { toProviderMetadata } from "./provider-metadata.js"
import { type ToolResultOutput, toToolUIPart } from "./tool-ui-part.js"

type UIPart = UIMessage["parts"][number]

/** The model the messages are for; `Provider.ModelInfo` fits. */
export type TargetModel = {
  providerID: string
  id: string
  capabilities?: { attachment?: boolean }
}

/** What a compaction request asks the model; the compaction agent answers with the summary. */
export const COMPACTION_QUESTION = "What did we do so far?"

/** Files whose content the prompt already inlined as text parts of the same message. */
export const INLINED_MIMES: ReadonlySet<string> = new Set(["text/plain", "application/x-directory"])

/**
 * The history as the AI SDK's model messages, for `streamText`. Each message becomes a UI message
 * and the SDK's own `convertToModelMessages` does the rest (splitting an assistant message at its
 * steps into assistant and tool messages). Async because that conversion is async in ai 6 and 7.
 */
export async function toModelMessages(messages: WithParts[], model: TargetModel): Promise<ModelMessage[]> {
  const converted: ModelMessage[] = []
  for (const message of messages) converted.push(...(await messageToModelMessages(message, model)))
  return converted
}

/**
 * One stored message as model messages. Messages convert on their own (nothing in one depends
 * on another), so a caller may keep each message's result and convert only what is new.
 */
export async function messageToModelMessages(
  { info, parts }: WithParts,
  model: TargetModel,
): Promise<ModelMessage[]> {
  // Results with files, keyed by the UI part's output object: tool call IDs are not unique across
  // providers (some number their calls per turn), the object passed to `toModelOutput` is.
  const contents = new Map<unknown, ToolResultOutput>()
  const toolsWithContent = new Set<string>()
  let uiParts: UIPart[]
  if (info.role === "user") uiParts = userParts(parts)
  else {
    if (!replayable(info, parts)) return []
    const options = {
      sameModel: info.providerID === model.providerID && info.modelID === model.id,
      attachments: model.capabilities?.attachment === true,
    }
    uiParts = parts.flatMap((part): UIPart[] => {
      if (part.type !== "tool") return assistantPart(part, options.sameModel)
      const { uiPart, content } = toToolUIPart(part, options)
      if (content) {
        contents.set(uiPart.output, content)
        toolsWithContent.add(part.tool)
      }
      return [uiPart]
    })
  }
  // A message with nothing but step boundaries would reach the provider as an empty message.
  if (!uiParts.some((part) => part.type !== "step-start")) return []
  const uiMessages: UIMessage[] = [{ id: info.id, role: info.role, parts: uiParts }]

  if (toolsWithContent.size === 0) return convertToModelMessages(uiMessages)
  // Other results of these tools as the SDK makes them without `toModelOutput`.
  const toModelOutput = ({ output }: { output: unknown }): ToolResultOutput =>
    contents.get(output) ??
    (typeof output === "string"
      ? { type: "text", value: output }
      : { type: "json", value: output as Extract<ToolResultOutput, { type: "json" }>["value"] })
  // Only `toModelOutput` is read during conversion; the schemas just make these valid tools.
  const tools: ToolSet = Object.fromEntries(
    [...toolsWithContent].map((name) => [
      name,
      tool({ inputSchema: jsonSchema({ type: "object" }), outputSchema: jsonSchema({}), toModelOutput }),
    ]),
  )
  return convertToModelMessages(uiMessages, { tools })
}

function userParts(parts: Part[]): UIPart[] {
  return parts.flatMap((part): UIPart[] => {
    switch (part.type) {
      case "text":
        return part.ignored || part.text === "" ? [] : [{ type: "text", text: part.text }]
      case "file":
        // ai 7 parses every file URL and throws on one it cannot; ai 6 would take it for base64 data.
        if (INLINED_MIMES.has(part.mime) || !URL.canParse(part.url)) return []
        return [{ type: "file", url: part.url, mediaType: part.mime, filename: part.filename }]
      case "compaction":
        return [{ type: "text", text: COMPACTION_QUESTION }]
      case "subtask":
        return [{ type: "text", text: subtaskNote(part) }]
      default:
        return []
    }
  })
}

/** Why the `task` tool call that follows was made without the model asking for it. */
export function subtaskNote(part: SubtaskPart): string {
  return `The user handed this task to the ${part.agent} sub-agent: ${part.description}. The task tool call that follows ran on the user's behalf.`
}

/**
 * A failed turn is not replayed: its partial output could mislead the model, and the error is
 * not the model's to answer. An aborted turn is, when it got far enough to say or do something.
 */
function replayable(info: Assistant, parts: Part[]): boolean {
  if (!info.error) return true
  if (info.error.name !== "AbortedError") return false
  return parts.some(
    (part) =>
      (part.type === "text" && !part.ignored && part.text.trim() !== "") ||
      part.type === "reasoning" ||
      part.type === "tool",
  )
}

function assistantPart(part: Part, sameModel: boolean): UIPart[] {
  switch (part.type) {
    case "text": {
      // Providers reject empty text blocks.
      if (part.ignored || part.text === "") return []
      return [{ type: "text", text: part.text, ...providerMetadata(part.metadata, sameModel) }]
    }
    case "reasoning":
      // Reasoning replays only to the model that produced it (a signature ties it there);
      // another model reads it as what the assistant wrote.
      // An empty part with nothing to sign (cut off by a crash) carries nothing to replay.
      if (part.text === "" && part.metadata === undefined) return []
      if (sameModel)
        return [{ type: "reasoning", text: part.text, ...providerMetadata(part.metadata, sameModel) }]
      return part.text.trim() === "" ? [] : [{ type: "text", text: part.text }]
    case "step-start":
      return [{ type: "step-start" }]
    default:
      return []
  }
}

function providerMetadata(metadata: Record<string, unknown> | undefined, sameModel: boolean) {
  // Another model's provider data (signatures, item IDs) would be rejected or misread.
  const providerMetadata = sameModel ? toProviderMetadata(metadata) : undefined
  return providerMetadata ? { providerMetadata } : {}
}
