import { z } from "zod"

/** What a skill's `name` must look like (agentskills.io): lowercase words of letters and digits joined by single hyphens. */
export const SKILL_NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/

const text = (what: string) =>
  z.string({ error: (issue) => (issue.input === undefined ? "is required" : `must be ${what}`) })

/**
 * A `SKILL.md`'s front matter as agentskills.io specifies it. Keys it does not name are allowed
 * (other tools add their own). `metadata` values that YAML read as numbers or booleans
 * (`version: 1.0`) are taken as the strings they were written as.
 */
export const SkillFrontMatter = z.looseObject({
  name: text("a string")
    .min(1, "is required")
    .max(64, "must be at most 64 characters")
    .regex(
      SKILL_NAME,
      "must be lowercase letters, digits and single hyphens, neither starting nor ending with a hyphen",
    ),
  description: text("a string")
    .refine((value) => value.trim() !== "", "must not be empty")
    .refine((value) => value.length <= 1024, "must be at most 1024 characters"),
  license: text("a string").optional(),
  "allowed-tools": text("a space-separated string of tool names").optional(),
  metadata: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean()]).transform(String), {
      error: "must be a map of keys to strings",
    })
    .optional(),
  compatibility: text("a string").max(500, "must be at most 500 characters").optional(),
})

/**
 * An Agent Skill: what the model is told of it (`name`, `description`), the instructions it
 * loads (`content`, the body of its `SKILL.md`), and where it lives. `location` (its `SKILL.md`)
 * and `directory` (its folder, where its `scripts/`, `references/` and `assets/` are) are set for
 * a skill found on disk; a skill the host gives as an object may leave them out.
 */
export type SkillInfo = {
  name: string
  description: string
  license?: string
  /** The front matter's `allowed-tools`, split at spaces (informational: no tool is switched by it). */
  allowedTools?: string[]
  metadata?: Record<string, string>
  compatibility?: string
  location?: string
  directory?: string
  content: string
}
