import { Decimal } from "decimal.js"
import { AbortedError, APIError } from "../message/errors.js"
import { fromError } from "../message/from-error.js"
import type { Assistant } from "../message/info.js"
import type { Part, ReasoningPart, TextPart, ToolPart } from "../message/part.js"
import { createProviderStream } from "../provider-call/provider-stream.js"
import { getUsage } from "../session/usage.js"
import { ownRows } from "../session/writers.js"
import { toAITools } from "../tool/ai-tools.js"
import { copyPlain } from "../util/copy-plain.js"
import { createSerialQueue } from "../util/serial-queue.js"
import type { CallSession, CallState, Stream } from "./call-state.js"
import { closeUnfinished } from "./close.js"
import type { CreateInput } from "./create-input.js"
import type { ModelStream } from "./model-stream.js"
import { readParts, StreamStalled } from "./read-stream.js"
import { callStart, laterStepStart, stepEnd } from "./step-snapshot.js"
import type { ProcessResult, StreamInput } from "./stream-input.js"
import { createTextCheckpoints } from "./text-checkpoint.js"
import { handleText } from "./text-events.js"
import { toolContext, toolHooks } from "./tool-context.js"
import { handleTool } from "./tool-events.js"

export type { CreateInput, ProcessorRuntime } from "./create-input.js"

const DEFAULT_IDLE_TIMEOUT_MS = 300_000
const DEFAULT_CHECKPOINT_MS = 1_000

/**
 * Turns one model call's stream into the persisted parts of one assistant message. Deltas are
 * published, not written one by one; every part is written when it starts and when it ends;
 * whatever is unfinished when the stream ends (abort, error, crash of a tool) is closed as
 * interrupted.
 */
export function create(input: CreateInput) {
  const state = createCallState(input)
  const settings: CallSettings = {
    input,
    idleTimeoutMs: input.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    stream: input.stream ?? createProviderStream(),
  }
  return {
    /** The assistant message as the processor last wrote it. */
    message: (): Assistant => copyPlain(state.message),
    /** Runs one model call and stores everything it produced. */
    process(request: StreamInput): Promise<ProcessResult> {
      return processCall(state, settings, request)
    },
  }
}

/** What a processor calls the model with, the same for each of its calls. */
type CallSettings = { input: CreateInput; idleTimeoutMs: number; stream: ModelStream }

async function processCall(
  state: CallState,
  settings: CallSettings,
  request: StreamInput,
): Promise<ProcessResult> {
  const { abort, message } = state
  const { input, idleTimeoutMs, stream } = settings
  let overflow = false
  // The call's own signal: the run's abort, or a stall, ends the provider's request and the
  // read in flight (readParts). Not AbortSignal.any, whose listeners on the run's signal
  // would pile up step after step.
  const call = new AbortController()
  const endCall = () => call.abort(abort.reason)
  abort.addEventListener("abort", endCall, { once: true })
  state.callSnapshot = callStart(state)
  try {
    const tools = toAITools(
      request.tools ?? [],
      toolContext(state, request),
      toolHooks(state, input.turn ?? []),
    )
    // Also a write a tool's progress asked for, which the tool itself may have survived.
    const checkWrites = () => {
      if (state.writeFailure) throw state.writeFailure.error
      return undefined
    }
    await readParts(stream({ model: input.model.language, request, tools, abort: call.signal }), call, {
      idle: {
        ms: idleTimeoutMs,
        busy: () => [...state.tools.values()].some((part) => part.state.status === "running"),
      },
      handle: (part, receivedAt) => {
        const pending = handle(state, part, receivedAt)
        return pending ? pending.then(checkWrites) : checkWrites()
      },
    })
  } catch (error) {
    // Storage failed: nothing more can be stored, so the turn stops and the caller gets the
    // storage's error. What is left open is closed by the next read or run of the session.
    if (state.writeFailure) {
      call.abort()
      throw state.writeFailure.error
    }
    const classified = abort.aborted
      ? abortedError()
      : error instanceof StreamStalled
        ? stallError(idleTimeoutMs)
        : fromError(error, { providerID: input.model.info.providerID })
    if (classified.name === "ContextOverflowError") overflow = true
    else message.error = classified
  } finally {
    abort.removeEventListener("abort", endCall)
    // What is still open is written as it closes, below: no timer is left to outlive the step.
    state.checkpoints.clear()
  }
  return finishCall(state, overflow)
}

/** After the stream: what is open closed, the message written if it changed, and what comes next. */
async function finishCall(state: CallState, overflow: boolean): Promise<ProcessResult> {
  const { abort, message } = state
  if (abort.aborted) message.error ??= abortedError()
  await closeUnfinished({ texts: state.texts, tools: state.tools, write: state.writePart })
  if (state.writeFailure) throw state.writeFailure.error
  // The step's end wrote the message complete: again only if something changed since.
  const { settled } = state
  if (settled?.writes !== state.writes || settled.message !== JSON.stringify(message)) {
    message.time.completed = Date.now()
    await writeMessage(state)
  }
  if (overflow) return "compact"
  if (state.blocked || message.error) return "stop"
  return "continue"
}

/**
 * One stream part into the call's state; a promise only when it writes (see handleText).
 * Unknown parts (sources, raw, whatever newer SDKs add) store nothing.
 */
function handle(state: CallState, part: Stream, receivedAt: number): Promise<unknown> | undefined {
  switch (part.type) {
    case "reasoning-start":
    case "reasoning-delta":
    case "reasoning-end":
    case "text-start":
    case "text-delta":
    case "text-end":
      return handleText(state, part, receivedAt)
    case "tool-input-start":
    case "tool-input-delta":
    case "tool-call":
    case "tool-result":
    case "tool-error":
      return handleTool(state, part)
    case "start-step":
      return startStep(state)
    case "finish-step":
      return finishStep(state, part)
    case "abort":
      state.message.error ??= abortedError()
      return undefined
    case "error":
      // The SDK reports a delta or end for a part whose start it never saw as an error part;
      // one lost piece of text is no reason to end the turn and lose what follows.
      if (isOrphanPartError(part.error)) return undefined
      throw part.error
    default:
      return undefined
  }
}

/** A step's start: a step-start part, with a snapshot of the files when a Snapshot port is given. */
async function startStep(state: CallState): Promise<void> {
  // The call's first step starts from the state recorded when the call started.
  const recorded = state.callSnapshotUsed ? laterStepStart(state) : state.callSnapshot
  state.callSnapshotUsed = true
  state.stepSnapshot = await recorded
  const snapshot = state.stepSnapshot ? { snapshot: state.stepSnapshot } : {}
  await writePart(state, { ...state.newPart(), type: "step-start", ...snapshot }, isHash(state.stepSnapshot))
}

/**
 * A step's end: a step-finish part with its usage and cost, a patch part when files changed, and
 * the message's finish, tokens, cost and end time, written with the session's totals in one
 * write. The message counts as complete here; the processor writes it again only if anything
 * changes after.
 */
async function finishStep(state: CallState, part: Extract<Stream, { type: "finish-step" }>): Promise<void> {
  const { message } = state
  const usage = getUsage({ model: state.model.info, usage: part.usage, metadata: part.providerMetadata })
  message.finish = part.finishReason
  message.cost = new Decimal(message.cost).plus(usage.cost).toNumber()
  if (usage.costUnknown) message.costUnknown = true
  message.tokens = usage.tokens
  const { snapshot: after, patch } = await stepEnd(state)
  const parts: Part[] = [
    {
      ...state.newPart(),
      type: "step-finish",
      reason: part.finishReason,
      ...(after ? { snapshot: after } : {}),
      cost: usage.cost,
      tokens: usage.tokens,
    },
  ]
  if (patch && patch.files.length > 0)
    parts.push({ ...state.newPart(), type: "patch", hash: patch.hash, files: patch.files })
  // Usage and cost come checked from getUsage; the patch's files come from the host's Snapshot.
  const own = ownRows(isOwnMessage(message), typeof part.finishReason === "string" && isHash(after), false)
  state.stepSnapshot = undefined
  message.time.completed = Date.now()
  const written = copyPlain(message)
  await queueWrite(state, () => state.session.recordUsage(state.sessionID, usage, written, parts, own))
  state.settled = { message: JSON.stringify(message), writes: state.writes }
}

/** The state of one model call, for one assistant message (see CallState). */
function createCallState(input: CreateInput): CallState {
  const { runtime } = input
  const message: Assistant = copyPlain(input.assistantMessage)
  const { sessionID, id: messageID } = message
  const state: CallState = {
    runtime,
    session: runtime.session as CallSession,
    model: input.model,
    hooks: input.hooks,
    onToolError: input.onToolError,
    abort: input.abort,
    snapshot: input.snapshot,
    message,
    sessionID,
    messageID,
    texts: new Map<string, TextPart | ReasoningPart>(),
    checkpoints: createTextCheckpoints({
      intervalMs: input.checkpointMs ?? DEFAULT_CHECKPOINT_MS,
      // A timer's write that fails is noted as the call's writeFailure; the next part throws it.
      write: (part) => writePart(state, part, true).catch(() => undefined),
    }),
    tools: new Map<string, ToolPart>(),
    early: new Map(),
    stepSnapshot: undefined,
    callSnapshot: Promise.resolve(undefined),
    callSnapshotUsed: false,
    snapshotFrom: input.snapshot ? input.snapshotFrom : undefined,
    lastStepEnd: undefined,
    stepChanges: new Set<string>(),
    blocked: false,
    rejection: input.rejection ?? "stop",
    queue: createSerialQueue(),
    messageWritten: false,
    writes: 0,
    settled: undefined,
    writeFailure: undefined,
    writePart: (part, built = false) => writePart(state, part, built),
    newPart: () => ({ id: runtime.session.newPartID(messageID), sessionID, messageID }),
  }
  return state
}

/** See CallState.writePart. The message goes with the call's first part: one write, and no message without its step. */
function writePart(state: CallState, part: Part, built: boolean): Promise<unknown> {
  state.writes++
  const copy = copyPlain(part)
  if (!state.messageWritten) {
    state.messageWritten = true
    const info = copyPlain(state.message)
    const own = ownRows(isOwnMessage(info), built)
    return queueWrite(state, () => state.session.saveMessage({ info, parts: [copy] }, own))
  }
  return queueWrite(state, () => state.session.updatePart(copy, ownRows(built)))
}

function writeMessage(state: CallState): Promise<unknown> {
  state.writes++
  state.messageWritten = true
  const info = copyPlain(state.message)
  return queueWrite(state, () => state.session.updateMessage(info, ownRows(isOwnMessage(info))))
}

/** Runs a write in order after the others, noting its failure for the call. */
function queueWrite<T>(state: CallState, operation: () => Promise<T>): Promise<T> {
  return state.queue.run(() =>
    operation().catch((error: unknown) => {
      state.writeFailure ??= { error }
      throw error
    }),
  )
}

/**
 * Whether the processor built the assistant message from checked values (see OwnRows): not
 * when it holds an error, whose fields come from whatever failed.
 */
function isOwnMessage(message: Assistant): boolean {
  return message.error === undefined && (message.finish === undefined || typeof message.finish === "string")
}

/** A state a Snapshot returned that can be stored as it is (a host's port may return anything). */
function isHash(hash: unknown): boolean {
  return hash === undefined || typeof hash === "string"
}

function isOrphanPartError(error: unknown): boolean {
  return typeof error === "string" && /^(text|reasoning) part .+ not found$/.test(error)
}

function stallError(ms: number) {
  const message = `The model stream stalled: nothing arrived for ${Math.round(ms / 1000)} s`
  return new APIError({ message, isRetryable: true }).toObject()
}

function abortedError() {
  return new AbortedError({ message: "The operation was aborted." }).toObject()
}
