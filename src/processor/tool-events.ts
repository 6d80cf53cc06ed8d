import type { ToolPart } from "../message/part.js"
import { isStorageFault } from "../storage/storage-fault.js"
import { errorMessage } from "../tool/tool-error.js"
import type { CallState, Stream } from "./call-state.js"
import { inputRecord, toolResult } from "./parts.js"
import { refusedBy, stopsTurn } from "./refusal.js"

type ToolEvent = Extract<
  Stream,
  { type: "tool-input-start" | "tool-input-delta" | "tool-call" | "tool-result" | "tool-error" }
>

/** Tool parts: pending while their input streams, running from the call, then completed or error. */
export function handleTool(state: CallState, part: ToolEvent): Promise<unknown> | undefined {
  switch (part.type) {
    case "tool-input-start":
      return state.writePart(toolPart(state, part.id, part.toolName), true)
    case "tool-input-delta": {
      const current = state.tools.get(part.id)
      if (current?.state.status === "pending") current.state.raw += part.delta
      return undefined
    }
    case "tool-call": {
      const current = toolPart(state, part.toolCallId, part.toolName)
      // The tool may have started (and been stored as running) before its call reached us.
      const started = current.state.status === "running"
      // The model's input only, or also what the tool reported of itself already.
      const built = !started && !state.early.has(part.toolCallId)
      if (!started) markRunning(state, current, part.input)
      // Provider data of the call (e.g. an item ID) must go back with it in the next request,
      // and a call the provider ran itself must not be sent back as ours.
      if (part.providerMetadata) current.metadata = part.providerMetadata
      if (part.providerExecuted) current.metadata = { ...current.metadata, providerExecuted: true }
      const changed = !started || part.providerMetadata || part.providerExecuted
      return changed ? state.writePart(current, built) : undefined
    }
    case "tool-result":
      return completeTool(state, part)
    case "tool-error": {
      // A tool whose own storage call failed (say, storing its permission request) met the
      // turn's storage failing: the turn stops as for any failed write, the call left running
      // for the next read to close as interrupted.
      if (isStorageFault(part.error)) {
        state.writeFailure ??= { error: part.error }
        return undefined
      }
      const current = toolPart(state, part.toolCallId, part.toolName)
      const by = refusedBy(part.error)
      current.state = {
        status: "error",
        input: inputRecord(part.input),
        error: errorMessage(part.error),
        ...(current.state.status === "running" && current.state.metadata
          ? { metadata: current.state.metadata }
          : {}),
        ...(by ? { refusedBy: by } : {}),
        time: { start: startOf(current), end: Date.now() },
      }
      if (stopsTurn(part.error, state.rejection)) state.blocked = true
      return state.writePart(current)
    }
  }
}

async function completeTool(state: CallState, part: Extract<ToolEvent, { type: "tool-result" }>) {
  const current = toolPart(state, part.toolCallId, part.toolName)
  const result = toolResult(part.output, part.providerExecuted === true)
  const attachments = result.attachments?.map((file) => ({
    ...state.newPart(),
    type: "file" as const,
    ...file,
  }))
  current.state = {
    status: "completed",
    input: inputRecord(part.input),
    output: result.output,
    title: result.title,
    metadata: result.metadata,
    ...(result.structured === undefined ? {} : { structured: result.structured }),
    ...(attachments ? { attachments } : {}),
    time: { start: startOf(current), end: Date.now() },
  }
  // Output and title are text (toolResult), `structured` is parsed JSON: with plain metadata and
  // no attachments (host data, parsed as it comes), the part holds nothing storage must check.
  await state.writePart(current, !attachments && isPlainRecord(result.metadata))
}

/**
 * Metadata the part schema's record takes as it is, and whose JSON is what that parse would give:
 * an object literal's kind, without an own `__proto__` key (the parse leaves that key out).
 */
function isPlainRecord(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false
  const prototype = Object.getPrototypeOf(value)
  return (prototype === Object.prototype || prototype === null) && !Object.hasOwn(value, "__proto__")
}

/** The call's tool part: the one the stream or the tool started, else a new pending one. */
export function toolPart(state: CallState, callID: string, toolName: string): ToolPart {
  let part = state.tools.get(callID)
  if (!part) {
    part = {
      ...state.newPart(),
      type: "tool",
      callID,
      tool: toolName,
      state: { status: "pending", input: {}, raw: "" },
    }
    state.tools.set(callID, part)
  }
  return part
}

/** The call as running, with the progress its tool reported before the stream showed it. */
export function markRunning(state: CallState, part: ToolPart, args: unknown): void {
  part.state = {
    status: "running",
    input: inputRecord(args),
    time: { start: Date.now() },
    ...state.early.get(part.callID),
  }
  state.early.delete(part.callID)
}

function startOf(part: ToolPart): number {
  return part.state.status === "running" ? part.state.time.start : Date.now()
}
