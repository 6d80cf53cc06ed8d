import type { AgentInfo } from "../agent/info.js"
import type { Ruleset } from "../schema/permission.js"
import { evaluate } from "../schema/permission-rules.js"

/** Whether a task can start the agent: sub-agents and agents for both roles, never the internal ones. */
export function isStartable(agent: AgentInfo): boolean {
  return !agent.hidden && agent.mode !== "primary"
}

/** The agents a task can start. */
export function startable(agents: Record<string, AgentInfo>): AgentInfo[] {
  return Object.values(agents).filter(isStartable)
}

/**
 * Whether the runtime offers the task tool unless told (`task` option): when an agent the host
 * gave (`hostAgents`, the names in its `agents` option, which the coding preset fills) is one a
 * task can start. The built-in `general` alone does not count, so a runtime with no sub-agent of
 * its own sends the model no `task` tool.
 */
export function offersTask(agents: Record<string, AgentInfo>, hostAgents: Iterable<string>): boolean {
  return [...hostAgents].some((name) => Object.hasOwn(agents, name) && isStartable(agents[name]!))
}

/**
 * The task tool's description, listing the sub-agents the caller's rules let it start (a `task`
 * rule that denies one hides it), sorted by name so the text, and a provider's prompt cache, stay
 * the same from step to step.
 */
export function taskDescription(agents: Record<string, AgentInfo>, ruleset: Ruleset = []): string {
  const list = startable(agents)
    .filter((agent) => evaluate("task", agent.name, ruleset).action !== "deny")
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((agent) => `- ${agent.name}: ${agent.description ?? "(no description)"}`)
    .join("\n")
  return `Start a sub-agent that works on a task on its own, in a session of its own, and returns its final answer.

Available sub-agents (subagent_type):
${list || "(none)"}

When to use it:
- A task that takes many searches or steps whose details you do not need afterwards: the sub-agent does them and reports back, which keeps your own context small.
- Independent tasks: start several in one step (several task calls at once) and they run in parallel.

How to use it:
- Give a short description (3-5 words) and a prompt that stands on its own: the sub-agent sees nothing of this conversation. Say exactly what it should do and what it should report.
- The answer comes back to you, not to the user: tell the user what matters in it.
- To continue an earlier task with its context, pass its task_id.`
}
