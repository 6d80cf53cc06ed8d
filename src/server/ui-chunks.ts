import { isNamedError } from "../error/named-error.js"
import type { Assistant } from "../message/info.js"
import type { FilePart, Part, ReasoningPart, TextPart, ToolPart } from "../message/part.js"
import { answerMetadata, attachmentsOf, toDataUIPart } from "../message/to-ui-messages.js"
import type { Event, EventOf } from "../schema/events.js"
import type { UIChunk } from "./ui-chunk.js"
import { createRequestChunks } from "./ui-requests.js"
import { createTextChunks } from "./ui-texts.js"

/** A chunk of the UI message stream of a run, typed with our metadata and data parts. */

// Stored metadata went through JSON (or will, on its way to the page): JSON values only.
type ToolMetadata = NonNullable<Extract<UIChunk, { type: "tool-input-available" }>["toolMetadata"]>
type FinishReason = Extract<UIChunk, { type: "finish" }>["finishReason"]
// The finish reasons both ai 6 and ai 7 know; ours may be others ("unknown").
const FINISH_REASONS = new Set<string>(["stop", "length", "content-filter", "tool-calls", "error", "other"])

/**
 * Turns one session's events into the chunks of one UI message: every answer of the run is a
 * step of it. Stateful per stream: it remembers which messages are the user's (their parts are
 * the client's own, not streamed) and the answers so far (their metadata is the message's).
 * `start` goes out before the first chunk, with the first answer's ID.
 */
export function createUIChunks() {
  const users = new Set<string>()
  // A compaction's summary is not part of the answer: it shows as a data-compaction note.
  const summaries = new Set<string>()
  const answers = new Map<string, Assistant>()
  const finishedTools = new Set<string>()
  const startedTools = new Set<string>()
  let started = false
  let failed = false
  let out: UIChunk[] = []
  const texts = createTextChunks(emit)
  const requests = createRequestChunks(emit)

  function emit(chunk: UIChunk): void {
    if (!started) {
      started = true
      const [first] = answers.keys()
      out.push(first === undefined ? { type: "start" } : { type: "start", messageId: first })
    }
    out.push(chunk)
  }

  function collect(run: () => void): UIChunk[] {
    out = []
    run()
    return out
  }

  function onMessage({ info }: EventOf<"message.updated">["properties"]): void {
    if (info.role === "user") users.add(info.id)
    else if (info.summary) summaries.add(info.id)
    else {
      answers.set(info.id, info)
      emit({ type: "message-metadata", messageMetadata: answerMetadata([...answers.values()]) })
    }
  }

  function onPart(part: Part): void {
    if (users.has(part.messageID)) {
      if (part.type === "compaction") emitData(part)
      return
    }
    if (summaries.has(part.messageID)) return
    if (part.type === "text" || part.type === "reasoning") onText(part)
    else if (part.type === "tool") onTool(part)
    else if (part.type === "file") emitFile(part)
    else if (part.type === "step-start") emit({ type: "start-step" })
    else if (part.type === "step-finish") emit({ type: "finish-step" })
    else if (part.type === "patch") emitData(part)
    // A retry shows from the session's status, which says when the next attempt starts.
  }

  function onText(part: TextPart | ReasoningPart): void {
    if (part.type !== "text" || !part.synthetic) texts.update(part)
  }

  /**
   * Input is announced while it streams and sent when the call has it, again whenever the
   * running tool's title or metadata change, and once more with the outcome, since a chunk with
   * the output carries no title.
   */
  function onTool(part: ToolPart): void {
    const { state, callID: toolCallId, tool: toolName } = part
    if (finishedTools.has(toolCallId)) return
    const providerExecuted = part.metadata?.providerExecuted === true ? { providerExecuted: true } : {}
    if (state.status === "pending") {
      if (startedTools.has(toolCallId)) return
      startedTools.add(toolCallId)
      emit({ type: "tool-input-start", toolCallId, toolName, ...providerExecuted })
      return
    }
    startedTools.add(toolCallId)
    emit({
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
      finishedTools.add(toolCallId)
      emit({ type: "tool-output-available", toolCallId, output: state.output })
      for (const file of attachmentsOf(part)) emitFile(file)
    } else if (state.status === "error") {
      finishedTools.add(toolCallId)
      emit({ type: "tool-output-error", toolCallId, errorText: state.error })
    }
  }

  function emitFile(file: FilePart): void {
    emit({ type: "file", url: file.url, mediaType: file.mime })
  }

  function emitData(part: Part): void {
    const data = toDataUIPart(part)
    if (data?.type.startsWith("data-")) emit(data as UIChunk)
  }

  function onStatus({ status }: EventOf<"session.status">["properties"]): void {
    if (status.type !== "retry") return
    const data = { attempt: status.attempt, message: status.message, next: status.next }
    emit({ type: "data-retry", id: `retry-${status.next}`, data })
  }

  function onError(error: NonNullable<Assistant["error"]>): void {
    failed = true
    if (error.name === "AbortedError") emit({ type: "abort", reason: error.data.message })
    else emit({ type: "error", errorText: error.data.message ?? error.name })
  }

  return {
    /** The chunks an event of the session (or a request of one of its sub-agents) adds. */
    accept(event: Event): UIChunk[] {
      return collect(() => {
        switch (event.type) {
          case "message.updated":
            return onMessage(event.properties)
          case "message.removed":
            // A failed attempt that was retried: its cost is not the turn's.
            answers.delete(event.properties.messageID)
            return
          case "message.part.updated":
            return onPart(event.properties.part)
          case "message.part.delta": {
            const { messageID, partID, delta } = event.properties
            if (!users.has(messageID) && !summaries.has(messageID)) texts.delta(partID, delta)
            return
          }
          case "session.status":
            return onStatus(event.properties)
          case "session.error":
            return onError(event.properties.error)
          default:
            requests(event)
        }
      })
    },
    /** The chunks of a failure that no `session.error` reported (a refused prompt). */
    fail(error: unknown): UIChunk[] {
      return collect(() => {
        if (!failed) emit({ type: "error", errorText: errorText(error) })
        failed = true
      })
    },
    /** The closing chunks: texts left open are ended, then `finish` with the final metadata. */
    end(): UIChunk[] {
      return collect(() => {
        texts.closeAll()
        const last = [...answers.values()].at(-1)
        const finishReason: FinishReason = FINISH_REASONS.has(last?.finish ?? "")
          ? (last?.finish as FinishReason)
          : undefined
        emit({
          type: "finish",
          ...(finishReason ? { finishReason } : {}),
          ...(last ? { messageMetadata: answerMetadata([...answers.values()]) } : {}),
        })
      })
    },
  }
}

function errorText(error: unknown): string {
  if (isNamedError(error)) {
    const message = (error.data as { message?: unknown }).message
    return typeof message === "string" ? message : error.name
  }
  return error instanceof Error ? error.message : String(error)
}
