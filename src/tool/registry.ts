import type { Ruleset } from "../schema/permission.js"
import { disabled, memoByRuleset } from "../schema/permission-rules.js"
import type { Info } from "./tool.js"

/** A tool whose description depends on the rules of the step, e.g. `task` lists the sub-agents they let it start. */
export type Describer = (ruleset: Ruleset) => string

/**
 * The tools a runtime knows: built-ins first, then the host's, a later tool replacing an
 * earlier one with the same id. `describers` belong to tool objects, so a host's tool that
 * replaces a built-in keeps its own description.
 */
export function createToolRegistry(
  tools: readonly Info[],
  describers: ReadonlyMap<Info, Describer> = new Map(),
) {
  const byID = new Map<string, Info>()
  for (const tool of tools) byID.set(tool.id, tool)
  // Wildcard matching of every tool against the rules, which change rarely between steps.
  const disabledBy = memoByRuleset((ruleset) => disabled(byID.keys(), ruleset))

  return {
    all(): Info[] {
      return [...byID.values()]
    },

    get(id: string): Info | undefined {
      return byID.get(id)
    },

    /**
     * The tools a step may use: not turned off entirely by the rules (`Permission.disabled`)
     * and not switched off by the prompt's `tools` map (`{ bash: false }`), described for those rules.
     */
    enabled(input: { ruleset: Ruleset; switches?: Record<string, boolean> | undefined }): Info[] {
      const off = disabledBy(input.ruleset)
      return [...byID.values()]
        .filter((tool) => !off.has(tool.id) && input.switches?.[tool.id] !== false)
        .map((tool) => {
          const describe = describers.get(tool)
          return describe ? { ...tool, description: describe(input.ruleset) } : tool
        })
    },
  }
}

/**
 * The tools a runtime knows, `runtime.tools`: the built-ins it serves and `RuntimeOptions.tools`,
 * looked up by ID and filtered per agent.
 */
export type ToolRegistry = ReturnType<typeof createToolRegistry>
