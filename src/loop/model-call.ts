import type { AgentInfo } from "../agent/info.js"
import { NotFoundError } from "../error/not-found.js"
import { AbortedError } from "../message/errors.js"
import type { Assistant, User, WithParts } from "../message/info.js"
import type { ToolPart } from "../message/part.js"
import type { ProcessResult, StreamInput } from "../processor/stream-input.js"
import type { Model } from "../provider/provider.js"
import type { LoopDeps } from "./loop-deps.js"

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

/** One model call with its retries (steps.ts `callModel`), as the compaction tasks are handed it. */
export type CallModel = (input: CallInput) => Promise<CallResult>

/** A stored answer with its parts. */
export type AssistantMessage = { info: Assistant; parts: WithParts["parts"] }

/**
 * The answers the loop stores around its model calls (steps.ts holds the call itself): a new
 * answer's info, an answer for a turn cancelled before its call, a failed or settled answer.
 */

/** An answer for a turn cancelled before its model call started (e.g. while a hook ran). */
export async function abortedAnswer(
  deps: LoopDeps,
  input: Omit<CallInput, "abort" | "request">,
): Promise<AssistantMessage> {
  const error = new AbortedError({ message: "The operation was aborted." }).toObject()
  const assistant = await newAssistant(deps, input)
  await deps.session.updateMessage({
    ...assistant,
    error,
    time: { ...assistant.time, completed: Date.now() },
  })
  deps.bus.publish("session.error", { sessionID: input.sessionID, error })
  return storedAnswer(deps, input.sessionID, assistant.id)
}

/** Stores `error` on an answer, publishes it, and returns the stored message. */
export async function failAnswer(
  deps: LoopDeps,
  message: Assistant,
  error: NonNullable<Assistant["error"]>,
): Promise<AssistantMessage> {
  await deps.session.updateMessage({ ...message, error })
  deps.bus.publish("session.error", { sessionID: message.sessionID, error })
  return storedAnswer(deps, message.sessionID, message.id)
}

/** Stores a finished answer's changed info and returns the stored message. */
export async function settleAnswer(deps: LoopDeps, message: Assistant): Promise<AssistantMessage> {
  await deps.session.updateMessage(message)
  return storedAnswer(deps, message.sessionID, message.id)
}

export async function storedAnswer(
  deps: LoopDeps,
  sessionID: string,
  messageID: string,
): Promise<AssistantMessage> {
  const message = await deps.storage.getMessage(sessionID, messageID)
  if (message?.info.role !== "assistant") throw NotFoundError.of("Message", messageID)
  return message as AssistantMessage
}

export async function newAssistant(
  deps: LoopDeps,
  input: Omit<CallInput, "abort" | "request">,
): Promise<Assistant> {
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
