import type { ToolPart } from "../message/part.js"
import { DeniedError } from "../permission/errors.js"
import type { PermissionService } from "../permission/service.js"
import type { Ruleset } from "../schema/permission.js"
import { evaluate } from "../schema/permission-rules.js"
import type { ToolHooks } from "../tool/ai-tools.js"
import type { Context } from "../tool/tool.js"
import { abortable } from "../util/abortable.js"
import { asksForPaths } from "./asks-for-paths.js"
import type { CallState } from "./call-state.js"
import { DOOM_LOOP_PERMISSION, doomLoopMessage, isDoomLoop } from "./doom-loop.js"
import { inputRecord } from "./parts.js"
import { willChange } from "./step-snapshot.js"
import type { StreamInput } from "./stream-input.js"
import { markRunning, toolPart } from "./tool-events.js"

/** The context each tool call of the turn runs with: its progress goes to its part, its asks to the rules. */
export function toolContext(state: CallState, streamInput: StreamInput) {
  const { sessionID, messageID } = state
  return (callID: string, signal: AbortSignal): Context => ({
    sessionID,
    messageID,
    turnID: state.message.parentID,
    callID,
    agent: state.message.agent,
    directory: state.message.path.cwd,
    abort: signal,
    async metadata(update) {
      const part = state.tools.get(callID)
      if (part?.state.status !== "running") {
        // The tool started before the stream showed its call: apply once the call is running.
        state.early.set(callID, { ...state.early.get(callID), ...update })
        return
      }
      part.state = { ...part.state, ...update }
      await state.writePart(part)
    },
    ask: askUnder(state.runtime.permission, {
      sessionID,
      tool: { messageID, callID },
      ruleset: streamInput.ruleset ?? [],
      signal,
      directory: state.message.path.cwd,
    }),
    evaluate: evaluateUnder(streamInput.ruleset ?? []),
    willChange: (file) => willChange(state, file),
  })
}

/** A tool call's `evaluate`: the step's rules, which its `ask` decides by, consulted without asking. */
export function evaluateUnder(ruleset: Ruleset): NonNullable<Context["evaluate"]> {
  return async (permission, pattern) => evaluate(permission, pattern, ruleset).action
}

/**
 * A tool call's `ask`: its requests go to the permission service under the step's rules. With
 * `paths`, the patterns are resolved against `directory` first (see asks-for-paths.ts).
 */
export function askUnder(
  permission: Pick<PermissionService, "ask">,
  call: {
    sessionID: string
    tool: { messageID: string; callID: string }
    ruleset: Ruleset
    signal: AbortSignal
    /** The session's directory, which `paths: true` resolves against. */
    directory?: string
  },
): Context["ask"] {
  const { directory, ...target } = call
  return async (request) => {
    const asks = request.paths === true ? asksForPaths(request, directory) : [request]
    for (const ask of asks)
      await permission.ask({
        ...target,
        permission: ask.permission,
        patterns: ask.patterns,
        always: ask.always ?? [],
        metadata: ask.metadata ?? {},
      })
  }
}

/** Around each tool call: stored as running first, the doom-loop guard, the host's hooks. */
export function toolHooks(state: CallState, earlierCalls: readonly ToolPart[]): ToolHooks {
  const { sessionID } = state
  return {
    error: state.onToolError,
    // Stored as running before the tool can ask anything: a permission request or question
    // stored by a process that then stops must point at a call that a reply can resume.
    start: async (tool, args, context) => {
      await state.callSnapshot
      const part = toolPart(state, context.callID, tool.id)
      if (part.state.status === "running") return
      markRunning(state, part, args)
      await state.writePart(part)
    },
    before: async (tool, args, context) => {
      // A tool that does not say which files it changes may change any: the step's end scans.
      if (tool.fileChanges === undefined) state.stepChanges = undefined
      await guardDoomLoop(state, earlierCalls, tool.id, args, context)
      const output = { args }
      const about = { sessionID, tool: tool.id, callID: context.callID, abort: context.abort }
      await abortable(state.hooks?.["tool.before"]?.(about, output), context.abort)
      return output.args
    },
    after: async (tool, result, context) => {
      const about = { sessionID, tool: tool.id, callID: context.callID, abort: context.abort }
      await abortable(state.hooks?.["tool.after"]?.(about, result), context.abort)
      return result
    },
  }
}

/**
 * The doom-loop guard: the same call a third time in a row asks the `doom_loop` permission;
 * a denial tells the model to stop repeating itself.
 */
async function guardDoomLoop(
  state: CallState,
  earlierCalls: readonly ToolPart[],
  toolID: string,
  args: unknown,
  context: Context,
) {
  const call = { tool: toolID, input: inputRecord(args) }
  // Call IDs repeat across messages with some providers: only this message's own part is skipped.
  const earlier = [...state.tools.values()].filter((part) => part.callID !== context.callID)
  if (!isDoomLoop([...earlierCalls, ...earlier], call)) return
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
