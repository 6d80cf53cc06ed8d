import { type LanguageModel, streamText, type TextStreamPart, type ToolSet } from "ai"
import { Decimal } from "decimal.js"
import { abortable } from "../loop/abortable.js"
import { DOOM_LOOP_PERMISSION, doomLoopMessage, isDoomLoop } from "../loop/doom-loop.js"
import type { Hooks } from "../loop/hooks.js"
import { AbortedError, APIError } from "../message/errors.js"
import { fromError } from "../message/from-error.js"
import type { Assistant } from "../message/info.js"
import type { Part, ReasoningPart, TextPart, ToolPart } from "../message/part.js"
import { DeniedError, RejectedError as PermissionRejectedError } from "../permission/errors.js"
import type { PermissionService } from "../permission/service.js"
import type { ModelInfo } from "../provider/model-info.js"
import { RejectedError as QuestionRejectedError } from "../question/errors.js"
import type { SessionService } from "../session/service.js"
import { getUsage } from "../session/usage.js"
import type { Snapshot } from "../snapshot/port.js"
import { type ToolHooks, toAITools } from "../tool/ai-tools.js"
import type { Context } from "../tool/tool.js"
import { closeUnfinished } from "./close.js"
import { errorText, inputRecord, toolResult } from "./parts.js"
import { StreamStalled, untilAborted } from "./read-stream.js"
import type { ProcessResult, StreamInput } from "./stream-input.js"
import { createWriteQueue } from "./write-queue.js"

/** What the processor writes through and asks through: a runtime's services, or a custom loop's. */
export type ProcessorRuntime = {
  session: Pick<
    SessionService,
    "updateMessage" | "updatePart" | "updatePartDelta" | "newPartID" | "recordUsage"
  >
  permission: Pick<PermissionService, "ask">
}

export type CreateInput = {
  runtime: ProcessorRuntime
  /** The assistant message this turn fills; already stored. */
  assistantMessage: Assistant
  model: { language: LanguageModel; info: ModelInfo }
  abort: AbortSignal
  /** When given, each step records a snapshot and a patch part listing the files it changed. */
  snapshot?: Snapshot
  /** Tool parts of earlier steps of this turn, oldest first: the doom-loop guard looks at them. */
  turn?: ToolPart[]
  /** The runtime's `tool.before`, `tool.after` and `text.complete` hooks. */
  hooks?: Pick<Hooks, "tool.before" | "tool.after" | "text.complete">
  /**
   * How long the stream may send nothing, while no tool runs, before the call fails as a
   * retryable APIError. Default 5 minutes (some reasoning models think that long in silence).
   */
  idleTimeoutMs?: number
  /** How often streamed text is written while it grows, so a crash loses at most this much. Default 1 s. */
  checkpointMs?: number
}

export const DEFAULT_IDLE_TIMEOUT_MS = 300_000
export const DEFAULT_CHECKPOINT_MS = 1_000

type Stream = TextStreamPart<ToolSet>

/**
 * Turns one AI SDK `fullStream` into the persisted parts of one assistant message. Deltas are
 * published, never written; every part is written when it starts and when it ends; whatever
 * is unfinished when the stream ends (abort, error, crash of a tool) is closed as interrupted.
 */
export function create(input: CreateInput) {
  const { runtime, model, abort, snapshot } = input
  const idleTimeoutMs = input.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS
  const checkpointMs = input.checkpointMs ?? DEFAULT_CHECKPOINT_MS
  const checkpointed = new Map<string, number>()
  const message: Assistant = structuredClone(input.assistantMessage)
  const { sessionID, id: messageID } = message
  const texts = new Map<string, TextPart | ReasoningPart>()
  const tools = new Map<string, ToolPart>()
  const early = new Map<string, { title?: string; metadata?: Record<string, unknown> }>()
  const queue = createWriteQueue()
  let stepSnapshot: string | undefined
  let blocked = false

  const writePart = (part: Part) => queue.run(() => runtime.session.updatePart(structuredClone(part)))
  const writeMessage = () => queue.run(() => runtime.session.updateMessage(structuredClone(message)))
  const newPart = () => ({ id: runtime.session.newPartID(messageID), sessionID, messageID })

  function toolPart(callID: string, toolName: string): ToolPart {
    let part = tools.get(callID)
    if (!part) {
      part = {
        ...newPart(),
        type: "tool",
        callID,
        tool: toolName,
        state: { status: "pending", input: {}, raw: "" },
      }
      tools.set(callID, part)
    }
    return part
  }

  /**
   * Deltas are not written (principle 5), so a crash would lose a part's whole streamed text:
   * at most once per interval the text so far is written, which bounds the loss to the last
   * interval's worth while the writes grow with time, not with the number of deltas.
   */
  function dueForCheckpoint(part: TextPart | ReasoningPart): boolean {
    const now = Date.now()
    if (now - (checkpointed.get(part.id) ?? part.time?.start ?? now) < checkpointMs) return false
    checkpointed.set(part.id, now)
    return true
  }

  function markRunning(part: ToolPart, input: unknown) {
    part.state = {
      status: "running",
      input: inputRecord(input),
      time: { start: Date.now() },
      ...early.get(part.callID),
    }
    early.delete(part.callID)
  }

  function contextFor(streamInput: StreamInput) {
    return (callID: string, signal: AbortSignal): Context => ({
      sessionID,
      messageID,
      callID,
      agent: message.agent,
      abort: signal,
      async metadata(update) {
        const part = tools.get(callID)
        if (part?.state.status !== "running") {
          // The tool started before the stream showed its call: apply once the call is running.
          early.set(callID, { ...early.get(callID), ...update })
          return
        }
        part.state = { ...part.state, ...update }
        await writePart(part)
      },
      ask: (request) =>
        runtime.permission.ask({
          sessionID,
          permission: request.permission,
          patterns: request.patterns,
          always: request.always ?? [],
          metadata: request.metadata ?? {},
          tool: { messageID, callID },
          ruleset: streamInput.ruleset ?? [],
          signal,
        }),
    })
  }

  const toolHooks: ToolHooks = {
    // Stored as running before the tool can ask anything: a permission request or question
    // stored by a process that then stops must point at a call that a reply can resume.
    start: async (tool, args, context) => {
      const part = toolPart(context.callID, tool.id)
      if (part.state.status === "running") return
      markRunning(part, args)
      await writePart(part)
    },
    before: async (tool, args, context) => {
      await guardDoomLoop(tool.id, args, context)
      const output = { args }
      const about = { sessionID, tool: tool.id, callID: context.callID, abort: context.abort }
      await abortable(input.hooks?.["tool.before"]?.(about, output), context.abort)
      return output.args
    },
    after: async (tool, result, context) => {
      const about = { sessionID, tool: tool.id, callID: context.callID, abort: context.abort }
      await abortable(input.hooks?.["tool.after"]?.(about, result), context.abort)
      return result
    },
  }

  /**
   * The doom-loop guard: the same call a third time in a row asks the `doom_loop` permission;
   * a denial tells the model to stop repeating itself.
   */
  async function guardDoomLoop(toolID: string, args: unknown, context: Context) {
    const call = { tool: toolID, input: inputRecord(args) }
    // Call IDs repeat across messages with some providers: only this message's own part is skipped.
    const earlier = [...tools.values()].filter((part) => part.callID !== context.callID)
    if (!isDoomLoop([...(input.turn ?? []), ...earlier], call)) return
    try {
      await context.ask({
        permission: DOOM_LOOP_PERMISSION,
        patterns: [toolID],
        always: [toolID],
        metadata: call,
      })
    } catch (error) {
      if (DeniedError.isInstance(error)) throw new Error(doomLoopMessage(toolID))
      throw error
    }
  }

  async function handle(part: Stream): Promise<void> {
    switch (part.type) {
      case "reasoning-start":
      case "text-start": {
        const type = part.type === "text-start" ? "text" : "reasoning"
        const created = { ...newPart(), type, text: "", time: { start: Date.now() } } as
          | TextPart
          | ReasoningPart
        if (part.providerMetadata) created.metadata = part.providerMetadata
        texts.set(part.id, created)
        await writePart(created)
        return
      }
      case "reasoning-delta":
      case "text-delta": {
        const current = texts.get(part.id)
        if (!current) return
        if (part.providerMetadata) current.metadata = mergeMetadata(current.metadata, part.providerMetadata)
        // Some providers stream metadata alone (Anthropic's signature deltas): nothing to show.
        if (part.text === "") return
        current.text += part.text
        runtime.session.updatePartDelta({
          sessionID,
          messageID,
          partID: current.id,
          field: "text",
          delta: part.text,
        })
        if (dueForCheckpoint(current)) await writePart(current)
        return
      }
      case "reasoning-end":
      case "text-end": {
        const current = texts.get(part.id)
        if (!current) return
        current.text = current.text.trimEnd()
        if (current.type === "text" && input.hooks?.["text.complete"]) {
          const output = { text: current.text }
          const about = { sessionID, messageID, partID: current.id, abort }
          // Until the hook is done the part stays open, so a cancel meanwhile still closes it.
          await abortable(input.hooks["text.complete"](about, output), abort)
          current.text = output.text
        }
        texts.delete(part.id)
        current.time = { start: current.time?.start ?? Date.now(), end: Date.now() }
        if (part.providerMetadata) current.metadata = mergeMetadata(current.metadata, part.providerMetadata)
        await writePart(current)
        return
      }
      case "tool-input-start":
        await writePart(toolPart(part.id, part.toolName))
        return
      case "tool-input-delta": {
        const current = tools.get(part.id)
        if (current?.state.status === "pending") current.state.raw += part.delta
        return
      }
      case "tool-call": {
        const current = toolPart(part.toolCallId, part.toolName)
        // The tool may have started (and been stored as running) before its call reached us.
        const started = current.state.status === "running"
        if (!started) markRunning(current, part.input)
        // Provider data of the call (e.g. an item ID) must go back with it in the next request,
        // and a call the provider ran itself must not be sent back as ours.
        if (part.providerMetadata) current.metadata = part.providerMetadata
        if (part.providerExecuted) current.metadata = { ...current.metadata, providerExecuted: true }
        if (!started || part.providerMetadata || part.providerExecuted) await writePart(current)
        return
      }
      case "tool-result": {
        const current = toolPart(part.toolCallId, part.toolName)
        const result = toolResult(part.output)
        current.state = {
          status: "completed",
          input: inputRecord(part.input),
          output: result.output,
          title: result.title,
          metadata: result.metadata,
          ...(result.attachments
            ? {
                attachments: result.attachments.map((file) => ({
                  ...newPart(),
                  type: "file" as const,
                  ...file,
                })),
              }
            : {}),
          time: { start: startOf(current), end: Date.now() },
        }
        await writePart(current)
        return
      }
      case "tool-error": {
        const current = toolPart(part.toolCallId, part.toolName)
        current.state = {
          status: "error",
          input: inputRecord(part.input),
          error: errorText(part.error),
          ...(current.state.status === "running" && current.state.metadata
            ? { metadata: current.state.metadata }
            : {}),
          time: { start: startOf(current), end: Date.now() },
        }
        // A user's "no" ends the turn; a configured denial or a correction goes back to the model.
        if (PermissionRejectedError.isInstance(part.error) || QuestionRejectedError.isInstance(part.error))
          blocked = true
        await writePart(current)
        return
      }
      case "start-step":
        stepSnapshot = snapshot ? await snapshot.track() : undefined
        await writePart({
          ...newPart(),
          type: "step-start",
          ...(stepSnapshot ? { snapshot: stepSnapshot } : {}),
        })
        return
      case "finish-step":
        await finishStep(part)
        return
      case "abort":
        message.error ??= abortedError()
        return
      case "error":
        // The SDK reports a delta or end for a part whose start it never saw as an error part;
        // one lost piece of text is no reason to end the turn and lose what follows.
        if (isOrphanPartError(part.error)) return
        throw part.error
      default:
        // Other parts (start, finish, sources, files, raw, and whatever newer SDKs add) carry nothing we store.
        return
    }
  }

  async function finishStep(part: Extract<Stream, { type: "finish-step" }>) {
    const usage = getUsage({ model: model.info, usage: part.usage, metadata: part.providerMetadata })
    message.finish = part.finishReason
    message.cost = new Decimal(message.cost).plus(usage.cost).toNumber()
    message.tokens = usage.tokens
    const after = snapshot ? await snapshot.track() : undefined
    await writePart({
      ...newPart(),
      type: "step-finish",
      reason: part.finishReason,
      ...(after ? { snapshot: after } : {}),
      cost: usage.cost,
      tokens: usage.tokens,
    })
    if (snapshot && stepSnapshot) {
      const patch = await snapshot.patch(stepSnapshot)
      if (patch.files.length > 0)
        await writePart({ ...newPart(), type: "patch", hash: patch.hash, files: patch.files })
    }
    stepSnapshot = undefined
    await queue.run(() => runtime.session.recordUsage(sessionID, usage, structuredClone(message)))
  }

  function stallError(ms: number) {
    const message = `The model stream stalled: nothing arrived for ${Math.round(ms / 1000)} s`
    return new APIError({ message, isRetryable: true }).toObject()
  }

  function abortedError() {
    return new AbortedError({ message: "The operation was aborted." }).toObject()
  }

  return {
    /** The assistant message as the processor last wrote it. */
    message: (): Assistant => structuredClone(message),

    /** Runs one model call and stores everything it produced. */
    async process(streamInput: StreamInput): Promise<ProcessResult> {
      let overflow = false
      // The call's own signal: the run's abort, or a stall, ends the provider's request. Not
      // AbortSignal.any, whose listeners on the run's signal would pile up step after step.
      const call = new AbortController()
      const endCall = () => call.abort(abort.reason)
      abort.addEventListener("abort", endCall, { once: true })
      try {
        const result = streamText({
          model: model.language,
          messages: streamInput.messages,
          ...(streamInput.system === undefined ? {} : { system: streamInput.system }),
          tools: toAITools(streamInput.tools ?? [], contextFor(streamInput), toolHooks),
          ...pick(streamInput, [
            "temperature",
            "topP",
            "maxOutputTokens",
            "toolChoice",
            "providerOptions",
            "headers",
          ]),
          abortSignal: call.signal,
          // Retries belong to the loop, which shows them as status and bounds them.
          maxRetries: 0,
          // Errors arrive as stream parts and are stored; the SDK need not log them too.
          onError: () => {},
        })
        const parts = untilAborted(result.fullStream, abort, {
          ms: idleTimeoutMs,
          busy: () => [...tools.values()].some((part) => part.state.status === "running"),
        })
        try {
          for (let next = await parts.next(); !next.done; next = await parts.next()) await handle(next.value)
        } finally {
          parts.close()
        }
      } catch (error) {
        if (error instanceof StreamStalled) call.abort()
        const classified = abort.aborted
          ? abortedError()
          : error instanceof StreamStalled
            ? stallError(idleTimeoutMs)
            : fromError(error, { providerID: model.info.providerID })
        if (classified.name === "ContextOverflowError") overflow = true
        else message.error = classified
      } finally {
        abort.removeEventListener("abort", endCall)
      }
      if (abort.aborted) message.error ??= abortedError()
      await closeUnfinished({ texts, tools, write: writePart })
      message.time.completed = Date.now()
      await writeMessage()
      if (overflow) return "compact"
      if (blocked || message.error) return "stop"
      return "continue"
    },
  }
}

function isOrphanPartError(error: unknown): boolean {
  return typeof error === "string" && /^(text|reasoning) part .+ not found$/.test(error)
}

function startOf(part: ToolPart): number {
  return part.state.status === "running" ? part.state.time.start : Date.now()
}

function pick<T extends object, K extends keyof T>(source: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const picked: Partial<Pick<T, K>> = {}
  for (const key of keys) if (source[key] !== undefined) picked[key] = source[key]
  return picked
}

/**
 * Provider metadata that arrives in pieces over a part's life (a signature on one delta, an item
 * ID on the end), merged per provider so no piece replaces another.
 */
function mergeMetadata(
  current: Record<string, unknown> | undefined,
  next: Record<string, unknown>,
): Record<string, unknown> {
  const merged = { ...current }
  for (const [provider, value] of Object.entries(next)) {
    const previous = merged[provider]
    merged[provider] = isRecord(previous) && isRecord(value) ? { ...previous, ...value } : value
  }
  return merged
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}
