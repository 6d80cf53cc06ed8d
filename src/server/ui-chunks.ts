import { isNamedError } from "../error/named-error.js"
import type { Assistant } from "../message/info.js"
import type { FilePart, Part, ReasoningPart, TextPart, ToolPart } from "../message/part.js"
import { answerMetadata, attachmentsOf, toDataUIPart } from "../message/to-ui-messages.js"
import type { Event, EventOf } from "../schema/events.js"
import type { UIChunk } from "./ui-chunk.js"
import { createRequestChunks } from "./ui-requests.js"
import { createTextChunks } from "./ui-texts.js"

// Stored metadata went through JSON (or will, on its way to the page): JSON values only.
type ToolMetadata = NonNullable<Extract<UIChunk, { type: "tool-input-available" }>["toolMetadata"]>
type FinishReason = Extract<UIChunk, { type: "finish" }>["finishReason"]
// The finish reasons both ai 6 and ai 7 know; ours may be others ("unknown").
const FINISH_REASONS = new Set<string>(["stop", "length", "content-filter", "tool-calls", "error", "other"])

/** One UI message stream's state, passed to the functions below. */
type UIRun = {
  /** The user's messages: their parts are the client's own, not streamed. */
  users: Set<string>
  /** A compaction's summary is not part of the answer: it shows as a data-compaction note. */
  summaries: Set<string>
  /** The answers so far; their metadata is the message's. */
  answers: Map<string, Assistant>
  finishedTools: Set<string>
  startedTools: Set<string>
  started: boolean
  failed: boolean
  /** The chunks the event being accepted adds. */
  out: UIChunk[]
  texts: ReturnType<typeof createTextChunks>
  requests: ReturnType<typeof createRequestChunks>
}

/**
 * Turns one session's events into the chunks of one UI message: every answer of the run is a
 * step of it. Stateful per stream: it remembers which messages are the user's (their parts are
 * the client's own, not streamed) and the answers so far (their metadata is the message's).
 * `start` goes out before the first chunk, with the first answer's ID.
 */
export function createUIChunks() {
  const send = (chunk: UIChunk) => emit(run, chunk)
  const run: UIRun = {
    users: new Set(),
    summaries: new Set(),
    answers: new Map(),
    finishedTools: new Set(),
    startedTools: new Set(),
    started: false,
    failed: false,
    out: [],
    texts: createTextChunks(send),
    requests: createRequestChunks(send),
  }
  return {
    /** The chunks an event of the session (or a request of one of its sub-agents) adds. */
    accept: (event: Event): UIChunk[] => collect(run, () => accept(run, event)),
    /** The chunks of a failure that no `session.error` reported (a refused prompt). */
    fail: (error: unknown): UIChunk[] =>
      collect(run, () => {
        if (!run.failed) emit(run, { type: "error", errorText: errorText(error) })
        run.failed = true
      }),
    /** The closing chunks: texts left open are ended, then `finish` with the final metadata. */
    end: (): UIChunk[] => collect(run, () => end(run)),
  }
}

function emit(run: UIRun, chunk: UIChunk): void {
  if (!run.started) {
    run.started = true
    const [first] = run.answers.keys()
    run.out.push(first === undefined ? { type: "start" } : { type: "start", messageId: first })
  }
  run.out.push(chunk)
}

function collect(run: UIRun, fill: () => void): UIChunk[] {
  run.out = []
  fill()
  return run.out
}

function accept(run: UIRun, event: Event) {
  switch (event.type) {
    case "message.updated":
      return onMessage(run, event.properties)
    case "message.removed":
      // A failed attempt that was retried: its cost is not the turn's.
      run.answers.delete(event.properties.messageID)
      return
    case "message.part.updated":
      return onPart(run, event.properties.part)
    case "message.part.delta": {
      const { messageID, partID, delta } = event.properties
      if (!run.users.has(messageID) && !run.summaries.has(messageID)) run.texts.delta(partID, delta)
      return
    }
    case "session.status":
      return onStatus(run, event.properties)
    case "session.error":
      return onError(run, event.properties.error)
    default:
      run.requests(event)
  }
}

function onMessage(run: UIRun, { info }: EventOf<"message.updated">["properties"]): void {
  if (info.role === "user") run.users.add(info.id)
  else if (info.summary) run.summaries.add(info.id)
  else {
    run.answers.set(info.id, info)
    emit(run, { type: "message-metadata", messageMetadata: answerMetadata([...run.answers.values()]) })
  }
}

function onPart(run: UIRun, part: Part): void {
  if (run.users.has(part.messageID)) {
    if (part.type === "compaction") emitData(run, part)
    return
  }
  if (run.summaries.has(part.messageID)) return
  if (part.type === "text" || part.type === "reasoning") onText(run, part)
  else if (part.type === "tool") onTool(run, part)
  else if (part.type === "file") emitFile(run, part)
  else if (part.type === "step-start") emit(run, { type: "start-step" })
  else if (part.type === "step-finish") emit(run, { type: "finish-step" })
  else if (part.type === "patch") emitData(run, part)
  // A retry shows from the session's status, which says when the next attempt starts.
}

function onText(run: UIRun, part: TextPart | ReasoningPart): void {
  if (part.type !== "text" || !part.synthetic) run.texts.update(part)
}

/**
 * Input is announced while it streams and sent when the call has it, again whenever the
 * running tool's title or metadata change, and once more with the outcome, since a chunk with
 * the output carries no title.
 */
function onTool(run: UIRun, part: ToolPart): void {
  const { state, callID: toolCallId, tool: toolName } = part
  if (run.finishedTools.has(toolCallId)) return
  const providerExecuted = part.metadata?.providerExecuted === true ? { providerExecuted: true } : {}
  if (state.status === "pending") {
    if (run.startedTools.has(toolCallId)) return
    run.startedTools.add(toolCallId)
    emit(run, { type: "tool-input-start", toolCallId, toolName, ...providerExecuted })
    return
  }
  run.startedTools.add(toolCallId)
  emit(run, {
    type: "tool-input-available",
    toolCallId,
    toolName,
    input: state.input,
    ...("title" in state && state.title !== undefined ? { title: state.title } : {}),
    ...("metadata" in state && state.metadata !== undefined
      ? { toolMetadata: state.metadata as ToolMetadata }
      : {}),
    ...providerExecuted,
  })
  if (state.status === "completed") {
    run.finishedTools.add(toolCallId)
    emit(run, { type: "tool-output-available", toolCallId, output: state.output })
    for (const file of attachmentsOf(part)) emitFile(run, file)
  } else if (state.status === "error") {
    run.finishedTools.add(toolCallId)
    emit(run, { type: "tool-output-error", toolCallId, errorText: state.error })
  }
}

function emitFile(run: UIRun, file: FilePart): void {
  emit(run, { type: "file", url: file.url, mediaType: file.mime })
}

function emitData(run: UIRun, part: Part): void {
  const data = toDataUIPart(part)
  if (data?.type.startsWith("data-")) emit(run, data as UIChunk)
}

function onStatus(run: UIRun, { status }: EventOf<"session.status">["properties"]): void {
  if (status.type !== "retry") return
  const data = { attempt: status.attempt, message: status.message, next: status.next }
  emit(run, { type: "data-retry", id: `retry-${status.next}`, data })
}

function onError(run: UIRun, error: NonNullable<Assistant["error"]>): void {
  run.failed = true
  if (error.name === "AbortedError") emit(run, { type: "abort", reason: error.data.message })
  else emit(run, { type: "error", errorText: error.data.message ?? error.name })
}

function end(run: UIRun): void {
  run.texts.closeAll()
  const last = [...run.answers.values()].at(-1)
  const finishReason: FinishReason = FINISH_REASONS.has(last?.finish ?? "")
    ? (last?.finish as FinishReason)
    : undefined
  emit(run, {
    type: "finish",
    ...(finishReason ? { finishReason } : {}),
    ...(last ? { messageMetadata: answerMetadata([...run.answers.values()]) } : {}),
  })
}

function errorText(error: unknown): string {
  if (isNamedError(error)) {
    const message = (error.data as { message?: unknown }).message
    return typeof message === "string" ? message : error.name
  }
  return error instanceof Error ? error.message : String(error)
}
