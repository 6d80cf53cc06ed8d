import { z } from "zod"
import { parseInput } from "../error/invalid-input.js"
import { withOwnNames } from "../util/own-names.js"
import { builtins } from "./builtins.js"
import { InvalidDefaultAgentError, UnknownAgentError } from "./errors.js"
import { Info } from "./info.js"

/** What a host may say about an agent: any field of Info; unknown fields are typos and rejected. */
export const Override = z.strictObject(Info.shape).partial()
export type Override = z.input<typeof Override>

const Overrides = z.object({
  agents: withOwnNames(z.record(z.string().min(1), Override)).superRefine((agents, ctx) => {
    for (const [name, agent] of Object.entries(agents)) {
      if (agent.name !== undefined && agent.name !== name)
        ctx.addIssue({ code: "custom", path: [name, "name"], message: `Must equal the key "${name}"` })
    }
  }),
})

/**
 * The built-in agents with the host's `overrides` applied. Overriding a built-in replaces the
 * fields given, except `permission`, whose rules are appended after the built-in's so they win.
 * A new name adds an agent (mode "all", no rules of its own unless given). Throws
 * InvalidInputError naming `agents.<name>.<field>`.
 */
export function resolveAgents(overrides: Record<string, Override> = {}): Record<string, Info> {
  const parsed = parseInput("agents", Overrides, { agents: overrides }).agents
  const agents = builtins()
  for (const [name, override] of Object.entries(parsed)) {
    const base: Info = Object.hasOwn(agents, name) ? agents[name]! : { name, mode: "all", permission: [] }
    const { permission, ...fields } = withoutUndefined(override)
    agents[name] = { ...base, ...fields, name, permission: [...base.permission, ...(permission ?? [])] }
  }
  return agents
}

/** The agent called `name`; UnknownAgentError when there is none. */
export function getAgent(agents: Record<string, Info>, name: string): Info {
  if (!Object.hasOwn(agents, name)) throw UnknownAgentError.of(name, Object.keys(agents))
  return agents[name]!
}

/**
 * The agent sessions use when a prompt names none: `name` (default "build"), which must exist
 * and be one the user can talk to. Throws InvalidDefaultAgentError listing the candidates.
 */
export function defaultAgent(agents: Record<string, Info>, name = "build"): Info {
  const primary = Object.values(agents)
    .filter((agent) => agent.mode !== "subagent" && agent.hidden !== true)
    .map((agent) => agent.name)
  if (!Object.hasOwn(agents, name)) throw InvalidDefaultAgentError.of(name, "unknown", primary)
  const agent = agents[name]!
  if (agent.mode === "subagent") throw InvalidDefaultAgentError.of(name, "subagent", primary)
  if (agent.hidden === true) throw InvalidDefaultAgentError.of(name, "hidden", primary)
  return agent
}

// `{ prompt: undefined }` means "not given", not "remove the built-in prompt".
function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T
}
