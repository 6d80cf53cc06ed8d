import { z } from "zod"
import { NamedError } from "../../error/named-error.js"

const SkillIssue = z.object({
  /** The skill's `SKILL.md`, or `skills[<index>]` for a skill object the host gave. */
  file: z.string(),
  /** The front matter's key at fault (`name`, `description`, ...), or `front matter` when it cannot be read. */
  field: z.string(),
  message: z.string(),
})

/** One thing wrong with one skill: which file, which field, what. */
export type SkillIssue = z.infer<typeof SkillIssue>

const InvalidSkillsData = z.object({ message: z.string(), issues: z.array(SkillIssue) })

/**
 * Skills that break the Agent Skills rules (a bad or mismatched name, a missing description,
 * two skills of one name, unreadable front matter), all of them in one error: `data.issues`
 * lists each file and what is wrong with it, and the message names every file. Thrown by a
 * skill catalogue's `load` when its `invalid` option is "throw".
 */
export class InvalidSkillsError extends NamedError<"InvalidSkillsError", z.infer<typeof InvalidSkillsData>> {
  static override readonly errorName = "InvalidSkillsError"
  static readonly Schema = z.object({ name: z.literal("InvalidSkillsError"), data: InvalidSkillsData })

  static of(issues: SkillIssue[]): InvalidSkillsError {
    const lines = issues.map(describeIssue)
    return new InvalidSkillsError({ message: `Invalid skills:\n${lines.join("\n")}`, issues })
  }
}

/** `- <file>: <field> <message>`, as the error and the warnings print an issue. */
export function describeIssue(issue: SkillIssue): string {
  return `- ${issue.file}: ${issue.field} ${issue.message}`
}
