import type { Ruleset } from "../schema/permission.js"
import { disabled, memoByRuleset } from "../schema/permission-rules.js"
import type { Info } from "./tool.js"

/**
 * The tools a runtime knows: built-ins first, then the host's, a later tool replacing an
 * earlier one with the same id.
 */
export function createToolRegistry(tools: readonly Info[]) {
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
     * The tools a step may use: not turned off entirely by the rules (`Permission.disabled`),
     * not switched off by the prompt's `tools` map (`{ bash: false }`), offered to the step's
     * model (`Tool.Info.offered`; every tool when no model is given), described for those rules
     * (`Tool.Info.describe`).
     */
    enabled(input: {
      ruleset: Ruleset
      switches?: Record<string, boolean> | undefined
      model?: { providerID: string; modelID: string } | undefined
    }): Info[] {
      const off = disabledBy(input.ruleset)
      const { model } = input
      return [...byID.values()]
        .filter((tool) => !off.has(tool.id) && input.switches?.[tool.id] !== false)
        .filter((tool) => model === undefined || tool.offered === undefined || tool.offered(model))
        .map((tool) =>
          tool.describe ? { ...tool, description: tool.describe({ ruleset: input.ruleset }) } : tool,
        )
    },
  }
}

/**
 * The tools a runtime knows, `runtime.tools`: the built-ins it serves and `RuntimeOptions.tools`,
 * looked up by ID and filtered per agent.
 */
export type ToolRegistry = ReturnType<typeof createToolRegistry>
