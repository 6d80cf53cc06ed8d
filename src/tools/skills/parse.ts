import { basename, dirname } from "node:path"
import type { z } from "zod"
import { FrontMatterError, parseFrontMatter } from "../markdown/front-matter.js"
import type { SkillIssue } from "./errors.js"
import { SKILL_NAME, SkillFrontMatter, type SkillInfo } from "./info.js"

/** A skill read and checked: the skill, or what is wrong with it. */
export type Checked = { skill: SkillInfo; issues?: undefined } | { skill?: undefined; issues: SkillIssue[] }

/**
 * The skill in the `SKILL.md` at `file` (its text), checked against agentskills.io: the front
 * matter's schema, and a `name` equal to the name of the file's folder.
 */
export function parseSkillFile(text: string, file: string): Checked {
  let parsed: { data: Record<string, unknown>; body: string }
  try {
    parsed = parseFrontMatter(text, file)
  } catch (error) {
    if (!FrontMatterError.isInstance(error)) throw error
    const message = error.message.startsWith(`${file}: `)
      ? error.message.slice(file.length + 2)
      : error.message
    return { issues: [{ file, field: "front matter", message }] }
  }
  const result = SkillFrontMatter.safeParse(parsed.data)
  if (!result.success) return { issues: issuesOf(result.error, file) }
  const folder = basename(dirname(file))
  if (result.data.name !== folder) {
    const message = `"${result.data.name}" differs from its folder's name "${folder}"; they must be the same`
    return { issues: [{ file, field: "name", message }] }
  }
  const skill = toSkill(result.data, parsed.body)
  return { skill: { ...skill, location: file, directory: dirname(file) } }
}

/** A skill the host gave as an object (`label` names it in issues), checked as a file's front matter is. */
export function checkSkillObject(given: SkillInfo, label: string): Checked {
  const issues: SkillIssue[] = []
  const name = typeof given.name === "string" ? given.name : ""
  if (name.length < 1 || name.length > 64 || !SKILL_NAME.test(name))
    issues.push({
      file: label,
      field: "name",
      message:
        "must be 1-64 lowercase letters, digits and single hyphens, neither starting nor ending with a hyphen",
    })
  const description = typeof given.description === "string" ? given.description : ""
  if (description.trim() === "" || description.length > 1024)
    issues.push({ file: label, field: "description", message: "must be 1-1024 characters, not blank" })
  if (typeof given.content !== "string")
    issues.push({ file: label, field: "content", message: "must be a string" })
  return issues.length > 0 ? { issues } : { skill: given }
}

function toSkill(data: z.output<typeof SkillFrontMatter>, body: string): SkillInfo {
  const allowed = data["allowed-tools"]?.split(/\s+/).filter((tool) => tool !== "")
  return {
    name: data.name,
    description: data.description,
    ...(data.license === undefined ? {} : { license: data.license }),
    ...(allowed === undefined ? {} : { allowedTools: allowed }),
    ...(data.metadata === undefined ? {} : { metadata: data.metadata }),
    ...(data.compatibility === undefined ? {} : { compatibility: data.compatibility }),
    content: body.trim(),
  }
}

function issuesOf(error: z.ZodError, file: string): SkillIssue[] {
  return error.issues.map((issue) => ({
    file,
    field: issue.path.map(String).join(".") || "front matter",
    message: issue.message,
  }))
}
