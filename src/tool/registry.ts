import { disabled } from "../permission/rules.js"
import type { Ruleset } from "../permission/schema.js"
import type { Info } from "./tool.js"

/**
 * The tools a runtime knows: built-ins first, then the host's, a later tool replacing an
 * earlier one with the same id.
 */
export function createToolRegistry(tools: readonly Info[]) {
  const byID = new Map<string, Info>()
  for (const tool of tools) byID.set(tool.id, tool)

  return {
    all(): Info[] {
      return [...byID.values()]
    },

    get(id: string): Info | undefined {
      return byID.get(id)
    },

    /**
     * The tools a step may use: not turned off entirely by the rules (`Permission.disabled`)
     * and not switched off by the prompt's `tools` map (`{ bash: false }`).
     */
    enabled(input: { ruleset: Ruleset; switches?: Record<string, boolean> | undefined }): Info[] {
      const off = disabled(byID.keys(), input.ruleset)
      return [...byID.values()].filter((tool) => !off.has(tool.id) && input.switches?.[tool.id] !== false)
    },
  }
}

export type ToolRegistry = ReturnType<typeof createToolRegistry>
