import { z } from "zod"
import type { AgentInfo } from "../agent/info.js"
import { InvalidInputError } from "../error/invalid-input.js"
import { parseID } from "../id/parse-id.js"
import type { WithParts } from "../message/info.js"
import type { Ruleset } from "../schema/permission.js"
import { evaluate } from "../schema/permission-rules.js"
import type { SessionInfo } from "../schema/session.js"
import type { Context, Result } from "../tool/tool.js"
import type { TaskDeps } from "./deps.js"
import { startable } from "./description.js"
import { NotASubagentError } from "./errors.js"

export const TaskParameters = z.object({
  description: z.string().describe("A short (3-5 words) description of the task"),
  prompt: z.string().describe("The task for the sub-agent, complete on its own"),
  subagent_type: z.string().describe("Which sub-agent runs the task"),
  task_id: z
    .string()
    .optional()
    .describe("The task_id an earlier task returned, to continue that task with its context"),
})
export type TaskParameters = z.infer<typeof TaskParameters>

/**
 * Runs a task in a child session with a sub-agent and returns its final text. The model's
 * calls ask the `task` permission (pattern: the sub-agent); a user's subtask part does not,
 * the user having asked for it. Aborting the caller cancels the child; a child that fails
 * fails the task, not the caller.
 */
export async function runTask(
  deps: TaskDeps,
  args: TaskParameters,
  context: Context,
  options: { ask: boolean },
): Promise<Result> {
  const agent = subagent(deps.agents, args.subagent_type)
  if (options.ask)
    await context.ask({
      permission: "task",
      patterns: [agent.name],
      always: [agent.name],
      metadata: { description: args.description, subagent_type: agent.name },
    })
  const child = await childSession(deps, args, context, agent)
  // OpenCode's rule: the sub-agent's own model, else the one its caller's step runs on.
  const model = agent.model ?? (await callerModel(deps, context))
  const metadata = { sessionID: child.id, ...(model ? { model } : {}) }
  await context.metadata({ title: args.description, metadata })
  const answer = await deps.prompt({
    sessionID: child.id,
    agent: agent.name,
    model,
    parts: [{ type: "text", text: args.prompt }],
    signal: context.abort,
  })
  const info = answer.info
  if (info.role === "assistant" && info.error) {
    const why = "message" in info.error.data ? String(info.error.data.message) : info.error.name
    throw new Error(`The ${agent.name} sub-agent failed (task_id: ${child.id}): ${why}`)
  }
  // What the child's answer ran on, in case no model was known before it started.
  const ran =
    info.role === "assistant" ? { model: { providerID: info.providerID, modelID: info.modelID } } : {}
  return {
    title: args.description,
    output: [
      `task_id: ${child.id} (pass it as task_id to continue this task)`,
      "",
      "<task_result>",
      finalText(answer),
      "</task_result>",
    ].join("\n"),
    metadata: { ...metadata, ...ran, agent: agent.name },
  }
}

function subagent(agents: Record<string, AgentInfo>, name: string): AgentInfo {
  const agent = startable(agents).find((candidate) => candidate.name === name)
  if (agent) return agent
  const known = startable(agents).map((candidate) => candidate.name)
  throw new NotASubagentError({
    agent: name,
    message: `"${name}" is not a sub-agent. Sub-agents: ${known.join(", ") || "none"}`,
  })
}

/** The child to run in: the one `task_id` names (it must be this session's), or a new one. */
async function childSession(
  deps: TaskDeps,
  args: TaskParameters,
  context: Context,
  agent: AgentInfo,
): Promise<SessionInfo> {
  if (args.task_id !== undefined) {
    const child = await deps.session.get(parseID("task_id", "session", args.task_id))
    if (child.parentID !== context.sessionID)
      throw new InvalidInputError({
        message: `Invalid task_id: ${args.task_id} is not a task of this session`,
        issues: [{ path: "task_id", message: "not a task of this session" }],
      })
    return child
  }
  const denied = [
    ...effectiveDenies(await deps.rulesFor(context.sessionID, context.agent)),
    ...subagentDenies(agent),
  ]
  return deps.session.create({
    parentID: context.sessionID,
    title: `${args.description} (@${agent.name} sub-agent)`,
    ...(denied.length > 0 ? { permission: denied } : {}),
  })
}

/** What only the top of a delegation may do: talk to the user, keep the to-do list, delegate. */
const TOP_LEVEL_TOOLS = ["task", "question", "todowrite", "todoread"] as const

/**
 * A sub-agent cannot ask the user, keeps no to-do list of its own and starts no sub-agents, so
 * delegation cannot recurse unless the host opts in: these are denied in every child session,
 * except a tool the sub-agent's own rules name (which then decide, as issue 17 set out). Stored
 * as the child's session rules, they outlive a restart and bind the child's own children too.
 */
function subagentDenies(agent: AgentInfo): Ruleset {
  return TOP_LEVEL_TOOLS.filter((tool) => !agent.permission.some((rule) => rule.permission === tool)).map(
    (tool) => ({ permission: tool, pattern: "*", action: "deny" as const }),
  )
}

/**
 * The caller's deny rules that still hold in its own rules (a later allow of the same thing
 * lifts a base deny). Stored as the child's session rules they come after its agent's, and the
 * session rules re-append every ancestor's denies, so no sub-agent, however deep, can widen
 * what its caller's agent was denied.
 */
function effectiveDenies(rules: Ruleset): Ruleset {
  return rules.filter(
    (rule) => rule.action === "deny" && evaluate(rule.permission, rule.pattern, rules).action === "deny",
  )
}

/** The model of the caller's step: a sub-agent without a model of its own runs on it. */
async function callerModel(deps: TaskDeps, context: Context) {
  const message = await deps.storage.getMessage(context.sessionID, context.messageID)
  if (message?.info.role !== "assistant") return undefined
  return { providerID: message.info.providerID, modelID: message.info.modelID }
}

function finalText(answer: WithParts): string {
  return answer.parts
    .flatMap((part) => (part.type === "text" && !part.synthetic ? [part.text] : []))
    .join("\n")
    .trim()
}
