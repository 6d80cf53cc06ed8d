import type { AgentInfo } from "../agent/info.js"
import { AbortedError } from "../message/errors.js"
import type { Assistant, User, WithParts } from "../message/info.js"
import type { SubtaskPart, ToolPart } from "../message/part.js"
import { interrupted } from "../processor/close.js"
import { inputRecord } from "../processor/parts.js"
import { askUnder, evaluateUnder } from "../processor/tool-context.js"
import type { SessionInfo } from "../schema/session.js"
import type { Context } from "../tool/tool.js"
import type { LoopContext } from "./context.js"
import { newAssistant } from "./model-call.js"

/**
 * The subtask parts of the turn's user message that have not run yet. A subtask's call is
 * stored under the part's own ID, so a run (or a later one, after a crash) finds it done.
 * Only the turn is read, from the newest message back (order is time, as for `turnToolParts`),
 * and nothing when the user message holds no subtask: most turns cost nothing here.
 */
export function pendingSubtasks(history: readonly WithParts[], user: WithParts): SubtaskPart[] {
  const subtasks = user.parts.filter((part): part is SubtaskPart => part.type === "subtask")
  if (subtasks.length === 0) return subtasks
  const done = new Set<string>()
  for (let index = history.length - 1; index >= 0; index--) {
    const { info, parts } = history[index]!
    if (info.id <= user.info.id) break
    if (info.role === "assistant" && info.parentID === user.info.id)
      for (const part of parts) if (part.type === "tool") done.add(part.callID)
  }
  return subtasks.filter((part) => !done.has(part.id))
}

/**
 * A subtask the user handed to a sub-agent, run as the `task` call the model would have made:
 * an assistant message of the turn holding that call, finished with "tool-calls" so that the
 * model answers next, with the sub-agent's report as the call's result. The user asked for it,
 * so no `task` permission is asked.
 */
export async function runSubtask(
  context: LoopContext,
  input: { sessionID: string; abort: AbortSignal; user: User; part: SubtaskPart },
): Promise<WithParts> {
  const { deps } = context
  const { sessionID, abort, user, part } = input
  const session = await deps.session.get(sessionID)
  const agent = context.agentOf(user.agent)
  // The step that hands over the subtask runs on the part's model (a command's), else the turn's;
  // the sub-agent then runs on its own model, else on this one.
  const model = context.provider().getModel(part.model ?? user.model)
  const assistant = await newAssistant(deps, {
    sessionID,
    user,
    agent,
    model,
    directory: session.directory,
  })
  const args = { description: part.description, prompt: part.prompt, subagent_type: part.agent }
  const tool: ToolPart = {
    id: deps.session.newPartID(assistant.id),
    sessionID,
    messageID: assistant.id,
    type: "tool",
    callID: part.id,
    tool: "task",
    state: { status: "running", input: inputRecord(args), time: { start: Date.now() } },
  }
  await deps.session.saveMessage({ info: assistant, parts: [tool] })

  // The call's part as last written: the sub-agent's metadata updates it while it runs.
  const call = { tool }
  const where = { sessionID, messageID: assistant.id, callID: part.id, directory: session.directory }
  const toolContext = await subtaskContext(context, { ...where, agent, abort, session }, call)
  try {
    const result = await deps.runTask(args, toolContext)
    const current = call.tool
    const { start } = current.state.status === "running" ? current.state.time : { start: Date.now() }
    const { title, output, metadata } = result
    const state = { status: "completed" as const, input: current.state.input, title, output, metadata }
    call.tool = { ...current, state: { ...state, time: { start, end: Date.now() } } }
  } catch (error) {
    call.tool = abort.aborted ? interrupted(call.tool, Date.now()) : failed(call.tool, error)
  }
  await deps.session.updatePart(call.tool)
  const finished: Assistant = {
    ...assistant,
    finish: "tool-calls",
    time: { ...assistant.time, completed: Date.now() },
    ...(abort.aborted
      ? { error: new AbortedError({ message: "The operation was aborted." }).toObject() }
      : {}),
  }
  await deps.session.updateMessage(finished)
  return { info: finished, parts: [call.tool] }
}

/** The `task` call's context: asks under the step's rules, metadata written to the call's part. */
async function subtaskContext(
  context: LoopContext,
  input: {
    sessionID: string
    messageID: string
    callID: string
    directory: string
    agent: AgentInfo
    abort: AbortSignal
    session: SessionInfo
  },
  call: { tool: ToolPart },
): Promise<Context> {
  const { deps } = context
  const { sessionID, messageID, callID, directory, agent, abort } = input
  const ruleset = await context.rulesFor(input.session, agent)
  return {
    sessionID,
    messageID,
    callID,
    agent: agent.name,
    directory,
    abort,
    async metadata(update) {
      if (call.tool.state.status !== "running") return
      call.tool = { ...call.tool, state: { ...call.tool.state, ...update } }
      await deps.session.updatePart(call.tool)
    },
    ask: askUnder(deps.permission, {
      sessionID,
      tool: { messageID, callID },
      ruleset,
      signal: abort,
      directory,
    }),
    evaluate: evaluateUnder(ruleset),
  }
}

/** A sub-agent that failed: the task's error, which the model reads, not the turn's. */
function failed(tool: ToolPart, error: unknown): ToolPart {
  if (tool.state.status !== "running") return tool
  const { input, metadata, time } = tool.state
  return {
    ...tool,
    state: {
      status: "error",
      input,
      error: error instanceof Error ? error.message : String(error),
      ...(metadata ? { metadata } : {}),
      time: { start: time.start, end: Date.now() },
    },
  }
}
