import type { AgentOptions } from "../../runtime/options.js"

/**
 * `base`'s agents with `project`'s laid over them: a name both have keeps `base`'s fields where
 * the project file gives none, and the file's rules come after `base`'s (so they win, as when a
 * file overrides a built-in agent); other names are taken as they are. For a host whose agents
 * are full definitions (the coding preset's `plan`), where a plain spread would drop them for
 * the file's few fields. Spread the host's own overrides after the result.
 */
export function overlayAgents(
  base: Record<string, AgentOptions>,
  project: Record<string, AgentOptions>,
): Record<string, AgentOptions> {
  const result: Record<string, AgentOptions> = { ...base }
  for (const [name, agent] of Object.entries(project)) {
    const under = Object.hasOwn(base, name) ? base[name] : undefined
    result[name] =
      under === undefined
        ? agent
        : { ...under, ...agent, permission: [...(under.permission ?? []), ...(agent.permission ?? [])] }
  }
  return result
}
