import type { CommandInfo } from "../../command/info.js"
import type { SkillCatalog } from "./catalog.js"
import type { SkillInfo } from "./info.js"

/**
 * The catalogue's skills (of its last load: `await catalog.load()` first) as slash commands, as
 * OpenCode offers them: `/<name>` sends the skill's instructions, with its base directory, as the
 * prompt. Merge them under the host's own commands, which win over a skill of the same name.
 */
export function skillCommands(catalog: SkillCatalog): Record<string, CommandInfo> {
  const commands: Record<string, CommandInfo> = {}
  for (const skill of catalog.skills()) {
    const template = skillTemplate(skill)
    if (template !== "") commands[skill.name] = { description: skill.description, template }
  }
  return commands
}

function skillTemplate(skill: SkillInfo): string {
  const body = skill.content.trim()
  if (!skill.directory) return body
  return [
    body,
    "",
    `Base directory for this skill: ${skill.directory}`,
    "Relative paths in this skill (e.g., scripts/, references/) are relative to this base directory.",
  ].join("\n")
}
