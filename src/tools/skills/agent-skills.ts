import type { InstructionSource } from "../../agent/instructions.js"
import { localOperations } from "../local-operations.js"
import { createSkillCatalog, type SkillCatalog, type SkillOptions } from "./catalog.js"
import { type SkillTool, skillTool } from "./skill-tool.js"

/** Agent Skills for a runtime: the `skill` tool, the instruction source that keeps it current, and the catalogue. */
export type AgentSkills = {
  /** The `skill` tool; put it in `RuntimeOptions.tools`. */
  tool: SkillTool
  /**
   * Put it in `RuntimeOptions.instructions`: called once per turn, it re-reads the skills so the
   * tool's description lists what is there at that turn. It adds no text to the system prompt.
   */
  instructions: InstructionSource
  /** The skills found; `load()` re-reads them, `skills()` is the last load's. */
  catalog: SkillCatalog
}

/**
 * Agent Skills (agentskills.io) for any runtime: the project's skills from `.opencode/skill(s)`,
 * `.claude/skills` and `.agents/skills` up the tree, the host's folders and the host's skills.
 * See docs/skills.md.
 */
export function agentSkills(options: SkillOptions): AgentSkills {
  const catalog = createSkillCatalog(options)
  return {
    tool: skillTool(catalog, { operations: options.operations ?? localOperations }),
    // The list goes in the tool's description, not the system prompt: only the description is
    // made for each step's rules, so a skill the rules deny is never shown.
    instructions: async ({ signal }) => {
      await catalog.load({ signal })
      return []
    },
    catalog,
  }
}
