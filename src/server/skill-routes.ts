import type { Hono } from "hono"
import { z } from "zod"
import type { Runtime } from "../runtime/runtime.js"
import type { SkillCatalog } from "../tools/skills/catalog.js"
import type { SkillInfo } from "../tools/skills/info.js"
import { documented } from "./route-doc.js"
import { PROJECT_ID } from "./wire/session.js"

/** Where a skill without a file (one the host gave as an object) is said to be, as OpenCode says of its built-in ones. */
const NO_FILE = "<built-in>"

const WireSkill = z.object({
  name: z.string(),
  description: z.string().optional(),
  location: z.string(),
  content: z.string(),
})

/**
 * OpenCode's skill reads, `GET /skill` and `GET /api/skill`, answered with the skills of the
 * runtime's `skill` tool (agentSkills), read anew at each request; none without that tool.
 */
export function skillRoutes(app: Hono, runtime: Runtime): void {
  app.get(
    "/skill",
    documented({
      operationId: "app.skills",
      summary: "The skill tool's skills",
      response: z.array(WireSkill),
    }),
    async (c) => c.json((await currentSkills(runtime)).map(toWireSkill)),
  )
  const location = { directory: runtime.directory, project: { id: PROJECT_ID, directory: runtime.directory } }
  app.get(
    "/api/skill",
    documented({
      operationId: "v2.skill.list",
      summary: "The skill tool's skills; `slash` when one is also a slash command",
      response: z.object({
        location: z.object({
          directory: z.string(),
          project: z.object({ id: z.string(), directory: z.string() }),
        }),
        data: z.array(WireSkill.extend({ slash: z.boolean() })),
      }),
    }),
    async (c) => {
      const data = (await currentSkills(runtime)).map((skill) => ({
        ...toWireSkill(skill),
        slash: Object.hasOwn(runtime.commands, skill.name),
      }))
      return c.json({ location, data })
    },
  )
}

/** The names of the skill tool's skills (of its last load), which `GET /command` marks as skills. */
export function skillNames(runtime: Runtime): Set<string> {
  return new Set(
    catalogOf(runtime)
      ?.skills()
      .map((skill) => skill.name) ?? [],
  )
}

/**
 * The skills read anew. When they are invalid under `invalid: "throw"`, the valid ones of that
 * read: the error is the turn's to report (it fails there), a client's list goes on.
 */
async function currentSkills(runtime: Runtime): Promise<readonly SkillInfo[]> {
  const catalog = catalogOf(runtime)
  if (!catalog) return []
  return catalog.load().catch(() => catalog.skills())
}

/** The catalogue the runtime's `skill` tool carries (the runtime's copy of a host tool keeps it). */
function catalogOf(runtime: Runtime): SkillCatalog | undefined {
  const catalog = (runtime.tools.get("skill") as { catalog?: Partial<SkillCatalog> } | undefined)?.catalog
  return typeof catalog?.load === "function" && typeof catalog.skills === "function"
    ? (catalog as SkillCatalog)
    : undefined
}

function toWireSkill(skill: SkillInfo): z.infer<typeof WireSkill> {
  return {
    name: skill.name,
    description: skill.description,
    location: skill.location ?? NO_FILE,
    content: skill.content,
  }
}
