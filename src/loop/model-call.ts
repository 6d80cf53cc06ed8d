import type { Info as AgentInfo } from "../agent/info.js"
import { NotFoundError } from "../error/not-found.js"
import { AbortedError } from "../message/errors.js"
import type { Assistant, User, WithParts } from "../message/info.js"
import type { ToolPart } from "../message/part.js"
import { create as createProcessor } from "../processor/processor.js"
import type { ProcessResult, StreamInput } from "../processor/stream-input.js"
import type { Model } from "../provider/provider.js"
import type { LoopDeps } from "./loop-deps.js"
import { nextRetry, sleep } from "./retry.js"

export type CallInput = {
  sessionID: string
  abort: AbortSignal
  /** The user message the answer belongs to. */
  user: User
  agent: AgentInfo
  model: Model
  directory: string
  request: StreamInput
  /** Tool parts of the turn so far, for the doom-loop guard. */
  turn?: ToolPart[]
  /** The state the files are in, when the step before ended there (see CreateInput.snapshotFrom). */
  snapshotFrom?: string | undefined
  /** The answer is a compaction summary. */
  summary?: boolean
}

/**
 * What one model call left: the stored assistant message and what the loop should do next. On
 * "compact" the message is the attempt the provider refused for its size, stored without error:
 * the caller decides whether it is dropped for a compaction or fails.
 */
export type CallResult = { message: AssistantMessage; outcome: ProcessResult }

/** A stored answer with its parts. */
export type AssistantMessage = { info: Assistant; parts: WithParts["parts"] }

/**
 * One model call as an assistant message, retried while the provider's error is transient: each
 * retry replaces the failed attempt's message and starts with a `retry` part, waits are shown as
 * the session's status, and the final error is stored and published.
 */
export function createModelCall(deps: LoopDeps) {
  async function call(input: CallInput): Promise<CallResult> {
    const { sessionID, abort } = input
    let retried: Assistant["error"]
    for (let attempt = 0; ; attempt++) {
      const assistant = await newAssistant(input)
      // Otherwise the processor writes the message with its first part.
      if (retried?.name === "APIError") {
        await deps.session.updateMessage(assistant)
        await deps.session.updatePart({
          id: deps.session.newPartID(assistant.id),
          sessionID,
          messageID: assistant.id,
          type: "retry",
          attempt,
          error: retried,
          time: { created: Date.now() },
        })
      }
      const processor = createProcessor({
        runtime: { session: deps.session, permission: deps.permission },
        assistantMessage: assistant,
        model: input.model,
        abort,
        hooks: deps.hooks,
        ...(deps.onToolError ? { onToolError: deps.onToolError } : {}),
        stream: deps.modelStream,
        rejection: input.agent.rejection ?? deps.rejection,
        ...(deps.streamIdleTimeoutMs === undefined ? {} : { idleTimeoutMs: deps.streamIdleTimeoutMs }),
        ...(input.turn ? { turn: input.turn } : {}),
        ...(deps.snapshot && !input.summary ? { snapshot: deps.snapshot } : {}),
        // A failed attempt may have changed files before it was dropped: a retry scans.
        ...(input.snapshotFrom && attempt === 0 ? { snapshotFrom: input.snapshotFrom } : {}),
      })
      const outcome = await processor.process(input.request)
      const error = processor.message().error
      if (outcome === "compact" || !error) return { message: await stored(sessionID, assistant.id), outcome }
      if (abort.aborted) {
        deps.bus.publish("session.error", { sessionID, error })
        return { message: await stored(sessionID, assistant.id), outcome }
      }

      const retry = nextRetry(attempt + 1, error, deps.retry)
      if (!retry) {
        deps.bus.publish("session.error", { sessionID, error })
        return { message: await stored(sessionID, assistant.id), outcome }
      }
      const wait = retry.delayMs
      deps.status.set(sessionID, {
        type: "retry",
        attempt: attempt + 1,
        message: retry.message,
        next: Date.now() + wait,
      })
      try {
        await sleep(wait, abort)
      } catch {
        const aborted = new AbortedError({ message: "The operation was aborted." }).toObject()
        return { message: await fail(processor.message(), aborted), outcome: "stop" }
      }
      // The failed attempt's partial output is dropped so the retry does not repeat it.
      await deps.session.removeMessage({ sessionID, messageID: assistant.id })
      retried = error
      deps.status.set(sessionID, { type: "busy" })
    }
  }

  /** An answer for a turn cancelled before its model call started (e.g. while a hook ran). */
  async function aborted(input: Omit<CallInput, "abort" | "request">): Promise<AssistantMessage> {
    const error = new AbortedError({ message: "The operation was aborted." }).toObject()
    const assistant = await newAssistant(input)
    await deps.session.updateMessage({
      ...assistant,
      error,
      time: { ...assistant.time, completed: Date.now() },
    })
    deps.bus.publish("session.error", { sessionID: input.sessionID, error })
    return stored(input.sessionID, assistant.id)
  }

  /** Stores `error` on an answer, publishes it, and returns the stored message. */
  async function fail(message: Assistant, error: NonNullable<Assistant["error"]>): Promise<AssistantMessage> {
    await deps.session.updateMessage({ ...message, error })
    deps.bus.publish("session.error", { sessionID: message.sessionID, error })
    return stored(message.sessionID, message.id)
  }

  /** Stores a finished answer's changed info and returns the stored message. */
  async function settle(message: Assistant): Promise<AssistantMessage> {
    await deps.session.updateMessage(message)
    return stored(message.sessionID, message.id)
  }

  async function stored(sessionID: string, messageID: string): Promise<AssistantMessage> {
    const message = await deps.storage.getMessage(sessionID, messageID)
    if (message?.info.role !== "assistant") throw NotFoundError.of("Message", messageID)
    return message as AssistantMessage
  }

  async function newAssistant(input: Omit<CallInput, "abort" | "request">): Promise<Assistant> {
    const { sessionID, model, directory } = input
    return {
      id: await deps.session.newMessageID(sessionID),
      sessionID,
      role: "assistant",
      time: { created: Date.now() },
      parentID: input.user.id,
      agent: input.agent.name,
      providerID: model.info.providerID,
      modelID: model.info.id,
      path: { cwd: directory, root: directory },
      cost: 0,
      tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
      ...(input.summary ? { summary: true } : {}),
    }
  }

  return { call, fail, settle, aborted, newAssistant }
}

export type ModelCall = ReturnType<typeof createModelCall>
