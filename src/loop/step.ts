import type { ModelMessage } from "ai"
import type { Info as AgentInfo } from "../agent/info.js"
import { MAX_STEPS } from "../agent/prompts/index.js"
import type { User, WithParts } from "../message/info.js"
import { DOOM_LOOP_THRESHOLD } from "../processor/doom-loop.js"
import type { Model } from "../provider/provider.js"
import { callSettings } from "./call-settings.js"
import type { LoopContext } from "./context.js"
import { turnToolParts } from "./exit-rule.js"
import type { CallResult } from "./model-call.js"
import { previousStepEnd } from "./previous-step-end.js"
import {
  STRUCTURED_FINAL_STEP,
  STRUCTURED_OUTPUT_SYSTEM,
  STRUCTURED_OUTPUT_TOOL,
  structuredFormat,
  structuredOutputTool,
} from "./structured-output.js"

/**
 * One step: what the model is sent (history, system prompt, settings, tools under the step's
 * rules) and one model call through the processor, stored as one assistant message. The last
 * step an agent is allowed runs without tools and is told to wrap up.
 */
export async function step(
  context: LoopContext,
  input: {
    sessionID: string
    abort: AbortSignal
    history: WithParts[]
    user: User
    agent: AgentInfo
    model: Model
    finalStep: boolean
    /** 1 for the turn's first model call. */
    stepNumber: number
  },
): Promise<CallResult> {
  const { deps } = context
  const { sessionID, abort, history, user, agent, model, finalStep, stepNumber } = input
  const session = await deps.session.get(sessionID)
  const ruleset = await context.rulesFor(session, agent)
  const tools = finalStep ? [] : deps.tools.enabled({ ruleset, switches: user.tools })
  const messages: ModelMessage[] = await context.modelMessages(history, model.info)
  const format = structuredFormat(user)
  if (finalStep) messages.push({ role: "user", content: format ? STRUCTURED_FINAL_STEP : MAX_STEPS })
  const settings = await callSettings(deps, { session, agent, model, user, abort }, context.systemPrompts)
  // A structured answer is a tool call the host asked for: no rule hides it, and the model
  // must call a tool every step until it gives it (on the last step, only this one).
  if (format) {
    tools.push(structuredOutputTool(format))
    settings.system = `${settings.system}\n\n${STRUCTURED_OUTPUT_SYSTEM}`
  }
  const toolChoice = !format
    ? undefined
    : finalStep
      ? ({ type: "tool", toolName: STRUCTURED_OUTPUT_TOOL } as const)
      : ("required" as const)
  return context.call.call({
    sessionID,
    abort,
    user,
    agent,
    model,
    directory: session.directory,
    request: {
      ...settings,
      messages,
      tools,
      ...(toolChoice === undefined ? {} : { toolChoice }),
      ruleset,
      metadata: { sessionID, agent: agent.name, step: stepNumber },
    },
    // Repeats are counted over the last few calls; twice the threshold leaves room for calls
    // whose IDs a provider reuses, which the guard skips.
    turn: turnToolParts(history, user.id, DOOM_LOOP_THRESHOLD * 2),
    snapshotFrom: previousStepEnd(history, user, stepNumber),
  })
}
