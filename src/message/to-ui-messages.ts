import type { UIMessage as SDKUIMessage, UIMessagePart, UITool, UIToolInvocation } from "ai"
import type { Reply as PermissionReply, Request as PermissionRequest } from "../schema/permission.js"
import type { Answer as QuestionAnswer, Request as QuestionRequest } from "../schema/question.js"
import type { Assistant, Info, User, WithParts } from "./info.js"
import type { FilePart, ModelRef, Part, Tokens, ToolPart } from "./part.js"

/** What a UI shows about a message besides its parts. Cost and outcome are set on answers only. */
export type UIMetadata = {
  agent: string
  providerID: string
  modelID: string
  time: { created: number; completed?: number }
  cost?: number
  tokens?: Tokens
  /** The last model call's finish reason ("stop", "tool-calls", ...). */
  finish?: string
  error?: NonNullable<Assistant["error"]>
  /** A compaction's summary rather than an answer: a UI may fold it away. */
  summary?: boolean
}

/**
 * The `data-*` parts, keyed by name. `permission` and `question` come only from the live stream
 * (requests are not stored in messages); the data of one request is sent again, under the same
 * part id, once it is answered.
 */
export type UIData = {
  permission: PermissionRequest & { reply?: PermissionReply }
  question: QuestionRequest & { answers?: QuestionAnswer[]; rejected?: boolean }
  retry: { attempt: number; message: string; next?: number }
  subtask: { description: string; prompt: string; agent: string; model?: ModelRef }
  compaction: { auto: boolean; overflow?: boolean }
  agent: { name: string }
  patch: { hash: string; files: string[] }
}

/** A session's message as AI SDK UI (`useChat`) renders it: `useChat<MessageV2.UIMessage>()`. */
export type UIMessage = SDKUIMessage<UIMetadata, UIData>
export type UIPart = UIMessagePart<UIData, Record<string, UITool>>
type ToolMetadata = NonNullable<UIToolInvocation<UITool>["toolMetadata"]>

/**
 * Stored messages as AI SDK UI messages, oldest first. The answers to one user message (one
 * assistant message per model call) become one UI message with a step per call, as `useChat`
 * shows a turn and as the UI message stream of a run builds it; its id is the first answer's.
 * What the user did not write (synthetic and ignored text) is left out, and so is a user
 * message left with nothing to show.
 */
export function toUIMessages(messages: readonly WithParts[]): UIMessage[] {
  const result: UIMessage[] = []
  let turn: { message: UIMessage; answers: Assistant[] } | undefined
  for (const { info, parts } of messages) {
    const uiParts = parts.flatMap(toUIParts)
    if (info.role === "assistant" && turn && turn.answers.at(-1)?.parentID === info.parentID) {
      turn.answers.push(info)
      turn.message.parts.push(...uiParts)
      turn.message.metadata = answerMetadata(turn.answers)
      continue
    }
    turn = undefined
    if (info.role === "user") {
      if (uiParts.length > 0)
        result.push({ id: info.id, role: "user", parts: uiParts, metadata: userMetadata(info) })
      continue
    }
    turn = { message: { id: info.id, role: "assistant", parts: uiParts }, answers: [info] }
    turn.message.metadata = answerMetadata(turn.answers)
    result.push(turn.message)
  }
  return result
}

/** One stored message's metadata. */
export function uiMetadata(info: Info): UIMetadata {
  return info.role === "user" ? userMetadata(info) : answerMetadata([info])
}

function userMetadata(info: User): UIMetadata {
  return {
    agent: info.agent,
    providerID: info.model.providerID,
    modelID: info.model.modelID,
    time: { created: info.time.created },
  }
}

/** A turn's answers as one: the last call's model and outcome, the sums of cost and tokens. */
export function answerMetadata(answers: readonly Assistant[]): UIMetadata {
  const first = answers[0]!
  const last = answers.at(-1)!
  return {
    agent: last.agent,
    providerID: last.providerID,
    modelID: last.modelID,
    time: {
      created: first.time.created,
      ...(last.time.completed === undefined ? {} : { completed: last.time.completed }),
    },
    cost: answers.reduce((sum, answer) => sum + answer.cost, 0),
    tokens: answers.map((answer) => answer.tokens).reduce(addTokens),
    ...(last.finish === undefined ? {} : { finish: last.finish }),
    ...(last.error === undefined ? {} : { error: last.error }),
    ...(answers.some((answer) => answer.summary) ? { summary: true } : {}),
  }
}

function addTokens(a: Tokens, b: Tokens): Tokens {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    reasoning: a.reasoning + b.reasoning,
    cache: { read: a.cache.read + b.cache.read, write: a.cache.write + b.cache.write },
  }
}

/**
 * One stored part as UI parts. Step finishes are summed up in the metadata; snapshots are the
 * runtime's bookkeeping; a tool's attachments follow it as file parts.
 */
export function toUIParts(part: Part): UIPart[] {
  switch (part.type) {
    case "text":
      if (part.synthetic || part.ignored || part.text === "") return []
      return [{ type: "text", text: part.text, state: "done" }]
    case "reasoning":
      return part.text === "" ? [] : [{ type: "reasoning", id: part.id, text: part.text, state: "done" }]
    case "file":
      return [toFileUIPart(part)]
    case "tool":
      return [toToolUIPart(part), ...attachmentsOf(part).map(toFileUIPart)]
    case "step-start":
      return [{ type: "step-start" }]
    case "step-finish":
    case "snapshot":
      return []
    default: {
      const data = toDataUIPart(part)
      return data ? [data] : []
    }
  }
}

export function toFileUIPart(part: FilePart): UIPart {
  return {
    type: "file",
    mediaType: part.mime,
    url: part.url,
    ...(part.filename === undefined ? {} : { filename: part.filename }),
  }
}

/**
 * A tool call as a static tool part (`tool-<name>`): pending while its input streams, running
 * once it has its input, then its output or error. The output is the text the model got; the
 * title and the tool's metadata (a diff, a command's output so far) ride along for the UI.
 */
export function toToolUIPart(part: ToolPart): UIPart {
  const { state } = part
  const base = {
    type: `tool-${part.tool}` as const,
    toolCallId: part.callID,
    ...("title" in state && state.title !== undefined ? { title: state.title } : {}),
    ...("metadata" in state && state.metadata !== undefined
      ? { toolMetadata: toolMetadata(state.metadata) }
      : {}),
    ...(part.metadata?.providerExecuted === true ? { providerExecuted: true } : {}),
  }
  switch (state.status) {
    case "pending":
      return { ...base, state: "input-streaming", input: state.input }
    case "running":
      return { ...base, state: "input-available", input: state.input }
    case "completed":
      return { ...base, state: "output-available", input: state.input, output: state.output }
    case "error":
      return { ...base, state: "output-error", input: state.input, errorText: state.error }
  }
}

export function attachmentsOf(part: ToolPart): FilePart[] {
  return part.state.status === "completed" ? (part.state.attachments ?? []) : []
}

/** Stored metadata went through JSON (or will, on its way to the page): JSON values only. */
function toolMetadata(metadata: Record<string, unknown>): ToolMetadata {
  return metadata as ToolMetadata
}

/** Parts a UI shows as notes: a retry, a sub-agent's task, a compaction, an @agent, changed files. */
export function toDataUIPart(part: Part): UIPart | undefined {
  switch (part.type) {
    case "retry":
      return {
        type: "data-retry",
        id: part.id,
        data: { attempt: part.attempt, message: part.error.data.message },
      }
    case "subtask":
      return {
        type: "data-subtask",
        id: part.id,
        data: {
          description: part.description,
          prompt: part.prompt,
          agent: part.agent,
          ...(part.model ? { model: part.model } : {}),
        },
      }
    case "compaction":
      return {
        type: "data-compaction",
        id: part.id,
        data: { auto: part.auto, ...(part.overflow === undefined ? {} : { overflow: part.overflow }) },
      }
    case "agent":
      return { type: "data-agent", id: part.id, data: { name: part.name } }
    case "patch":
      return { type: "data-patch", id: part.id, data: { hash: part.hash, files: part.files } }
    default:
      return undefined
  }
}
