import { AbortedError } from "../message/errors.js"
import type { Assistant, User, WithParts } from "../message/info.js"
import type { SubtaskPart, ToolPart } from "../message/part.js"
import { interrupted } from "../processor/close.js"
import { inputRecord } from "../processor/parts.js"
import { askUnder, evaluateUnder } from "../processor/tool-context.js"
import type { Context } from "../tool/tool.js"
import type { LoopContext } from "./context.js"

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
  const assistant = await context.call.newAssistant({
    sessionID,
    user,
    agent,
    model,
    directory: session.directory,
  })
  const args = { description: part.description, prompt: part.prompt, subagent_type: part.agent }
  let tool: ToolPart = {
    id: deps.session.newPartID(assistant.id),
    sessionID,
    messageID: assistant.id,
    type: "tool",
    callID: part.id,
    tool: "task",
    state: { status: "running", input: inputRecord(args), time: { start: Date.now() } },
  }
  await deps.session.saveMessage({ info: assistant, parts: [tool] })

  const ruleset = await context.rulesFor(session, agent)
  const toolContext: Context = {
    sessionID,
    messageID: assistant.id,
    callID: part.id,
    agent: agent.name,
    directory: session.directory,
    abort,
    async metadata(update) {
      if (tool.state.status !== "running") return
      tool = { ...tool, state: { ...tool.state, ...update } }
      await deps.session.updatePart(tool)
    },
    ask: askUnder(deps.permission, {
      sessionID,
      tool: { messageID: assistant.id, callID: part.id },
      ruleset,
      signal: abort,
      directory: session.directory,
    }),
    evaluate: evaluateUnder(ruleset),
  }
  try {
    const result = await deps.runTask(args, toolContext)
    const { start } = tool.state.status === "running" ? tool.state.time : { start: Date.now() }
    const { title, output, metadata } = result
    const state = { status: "completed" as const, input: tool.state.input, title, output, metadata }
    tool = { ...tool, state: { ...state, time: { start, end: Date.now() } } }
  } catch (error) {
    tool = abort.aborted ? interrupted(tool, Date.now()) : failed(tool, error)
  }
  await deps.session.updatePart(tool)
  const finished: Assistant = {
    ...assistant,
    finish: "tool-calls",
    time: { ...assistant.time, completed: Date.now() },
    ...(abort.aborted
      ? { error: new AbortedError({ message: "The operation was aborted." }).toObject() }
      : {}),
  }
  await deps.session.updateMessage(finished)
  return { info: finished, parts: [tool] }
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
