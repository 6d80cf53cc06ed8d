import { pathToFileURL } from "node:url"
import { z } from "zod"
import type { Ruleset } from "../../schema/permission.js"
import { evaluate } from "../../schema/permission-rules.js"
import { type Context, define, type ToolInfo } from "../../tool/tool.js"
import type { Operations } from "../operations.js"
import type { SkillCatalog } from "./catalog.js"
import type { SkillInfo } from "./info.js"
import { sampleFiles } from "./sample.js"

const Parameters = z.object({
  name: z.string().describe("The name of the skill, as listed in <available_skills>"),
})

const INTRO = `Loads a skill: instructions for a kind of task, with the scripts, references and templates kept beside them.

Load one when the user asks for it, or when the task clearly matches a skill's description below. A skill about one repository or domain is only for tasks about that repository or domain; do not load a skill because a few words, a command name or a tool name overlap.

The result is a <skill_content name="..."> block: the skill's instructions, its base directory (relative paths in the skill are relative to it) and some of its files. The name must be one of those listed here.`

/** The `skill` tool: its description lists the skills the step's rules allow, and it carries its catalogue. */
export type SkillTool = ToolInfo<typeof Parameters> & {
  /** The description under these rules: the tool's text and `<available_skills>`, without the skills the rules deny. */
  describe(input: { ruleset: Ruleset }): string
  /** The skills the tool serves (the server lists them to OpenCode's clients). */
  catalog: SkillCatalog
}

/**
 * The `skill` tool over `catalog`: loads a skill by name, asking permission `skill` with the
 * name as pattern, and returns its instructions, base directory and a sample of its files.
 */
export function skillTool(catalog: SkillCatalog, options: { operations: Operations }): SkillTool {
  const describe = ({ ruleset }: { ruleset: Ruleset }) =>
    `${INTRO}\n\n${availableSkills(allowed(catalog.skills(), ruleset))}`
  const tool = define("skill", {
    description: `${INTRO}\n\n${availableSkills([])}`,
    fileChanges: "none",
    parameters: Parameters,
    describe,
    async execute(args, context) {
      if (!catalog.loaded()) await catalog.load({ signal: context.abort })
      const skill = catalog.skills().find((candidate) => candidate.name === args.name)
      if (!skill) {
        const names = await allowedNames(catalog.skills(), context)
        throw new Error(`Skill "${args.name}" not found. Available skills: ${names.join(", ") || "none"}`)
      }
      await context.ask({ permission: "skill", patterns: [skill.name], always: [skill.name], metadata: {} })
      const files = skill.directory
        ? await sampleFiles(options.operations, skill.directory, context.abort)
        : []
      return {
        title: `Loaded skill: ${skill.name}`,
        output: skillContent(skill, files),
        metadata: { name: skill.name, ...(skill.directory ? { dir: skill.directory } : {}) },
      }
    },
  })
  return { ...tool, describe, catalog }
}

/** The skills the rules do not deny, by name. */
function allowed(skills: readonly SkillInfo[], ruleset: Ruleset): SkillInfo[] {
  return byName(skills).filter((skill) => evaluate("skill", skill.name, ruleset).action !== "deny")
}

async function allowedNames(skills: readonly SkillInfo[], context: Context): Promise<string[]> {
  const names: string[] = []
  for (const skill of byName(skills))
    if ((await context.evaluate?.("skill", skill.name)) !== "deny") names.push(skill.name)
  return names
}

function byName(skills: readonly SkillInfo[]): SkillInfo[] {
  return [...skills].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

/** The skills as OpenCode lists them to the model. */
function availableSkills(skills: readonly SkillInfo[]): string {
  if (skills.length === 0) return "No skills are currently available."
  const entries = skills.flatMap((skill) => [
    "  <skill>",
    `    <name>${skill.name}</name>`,
    `    <description>${skill.description}</description>`,
    ...(skill.location ? [`    <location>${pathToFileURL(skill.location).href}</location>`] : []),
    "  </skill>",
  ])
  return ["<available_skills>", ...entries, "</available_skills>"].join("\n")
}

/** What loading a skill returns, in OpenCode's layout. */
function skillContent(skill: SkillInfo, files: readonly string[]): string {
  const place = skill.directory
    ? [
        "",
        `Base directory for this skill: ${pathToFileURL(skill.directory).href}`,
        "Relative paths in this skill (e.g., scripts/, references/) are relative to this base directory.",
        "Note: file list is sampled.",
        "",
        "<skill_files>",
        ...files.map((file) => `<file>${file}</file>`),
        "</skill_files>",
      ]
    : []
  return [
    `<skill_content name="${skill.name}">`,
    `# Skill: ${skill.name}`,
    "",
    skill.content.trim(),
    ...place,
    "</skill_content>",
  ].join("\n")
}
