import { AbortedError, APIError } from "../message/errors.js"
import { fromError } from "../message/from-error.js"
import type { Assistant } from "../message/info.js"
import { createProviderStream } from "../provider-call/provider-stream.js"
import { toAITools } from "../tool/ai-tools.js"
import { copyPlain } from "../util/copy-plain.js"
import { closeUnfinished } from "./close.js"
import type { CreateInput } from "./create-input.js"
import { readParts, StreamStalled } from "./read-stream.js"
import { finishStep, startStep } from "./step-events.js"
import { callStart } from "./step-snapshot.js"
import type { ProcessResult, StreamInput } from "./stream-input.js"
import { handleText } from "./text-events.js"
import { toolContext, toolHooks } from "./tool-context.js"
import { handleTool } from "./tool-events.js"
import { createTurn, type Stream, type Turn } from "./turn.js"

export type { CreateInput, ProcessorRuntime } from "./create-input.js"

const DEFAULT_IDLE_TIMEOUT_MS = 300_000

/**
 * Turns one model call's stream into the persisted parts of one assistant message. Deltas are
 * published, not written one by one; every part is written when it starts and when it ends;
 * whatever is unfinished when the stream ends (abort, error, crash of a tool) is closed as
 * interrupted.
 */
export function create(input: CreateInput) {
  const turn = createTurn(input)
  const idleTimeoutMs = input.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS
  const stream = input.stream ?? createProviderStream()

  return {
    /** The assistant message as the processor last wrote it. */
    message: (): Assistant => copyPlain(turn.message),

    /** Runs one model call and stores everything it produced. */
    async process(request: StreamInput): Promise<ProcessResult> {
      const { abort, message } = turn
      let overflow = false
      // The call's own signal: the run's abort, or a stall, ends the provider's request and the
      // read in flight (readParts). Not AbortSignal.any, whose listeners on the run's signal
      // would pile up step after step.
      const call = new AbortController()
      const endCall = () => call.abort(abort.reason)
      abort.addEventListener("abort", endCall, { once: true })
      turn.callSnapshot = callStart(turn)
      try {
        const tools = toAITools(
          request.tools ?? [],
          toolContext(turn, request),
          toolHooks(turn, input.turn ?? []),
        )
        // Also a write a tool's progress asked for, which the tool itself may have survived.
        const checkWrites = () => {
          if (turn.writeFailure) throw turn.writeFailure.error
          return undefined
        }
        await readParts(stream({ model: input.model.language, request, tools, abort: call.signal }), call, {
          idle: {
            ms: idleTimeoutMs,
            busy: () => [...turn.tools.values()].some((part) => part.state.status === "running"),
          },
          handle: (part, receivedAt) => {
            const pending = handle(turn, part, receivedAt)
            return pending ? pending.then(checkWrites) : checkWrites()
          },
        })
      } catch (error) {
        // Storage failed: nothing more can be stored, so the turn stops and the caller gets the
        // storage's error. What is left open is closed by the next read or run of the session.
        if (turn.writeFailure) {
          call.abort()
          throw turn.writeFailure.error
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
        turn.checkpoints.clear()
      }
      if (abort.aborted) message.error ??= abortedError()
      await closeUnfinished({ texts: turn.texts, tools: turn.tools, write: turn.writePart })
      if (turn.writeFailure) throw turn.writeFailure.error
      // The step's end wrote the message complete: again only if something changed since.
      const { settled } = turn
      if (settled?.writes !== turn.writes || settled.message !== JSON.stringify(message)) {
        message.time.completed = Date.now()
        await turn.writeMessage()
      }
      if (overflow) return "compact"
      if (turn.blocked || message.error) return "stop"
      return "continue"
    },
  }
}

/**
 * One stream part into the turn; a promise only when it writes (see handleText). Unknown parts
 * (sources, raw, whatever newer SDKs add) store nothing.
 */
function handle(turn: Turn, part: Stream, receivedAt: number): Promise<unknown> | undefined {
  switch (part.type) {
    case "reasoning-start":
    case "reasoning-delta":
    case "reasoning-end":
    case "text-start":
    case "text-delta":
    case "text-end":
      return handleText(turn, part, receivedAt)
    case "tool-input-start":
    case "tool-input-delta":
    case "tool-call":
    case "tool-result":
    case "tool-error":
      return handleTool(turn, part)
    case "start-step":
      return startStep(turn)
    case "finish-step":
      return finishStep(turn, part)
    case "abort":
      turn.message.error ??= abortedError()
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
