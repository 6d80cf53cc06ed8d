import { z } from "zod"
import { baseRules } from "../../agent/builtins.js"
import { Mode } from "../../agent/info.js"
import type { AgentOptions } from "../../runtime/options.js"
import { Action } from "../../schema/permission.js"
import { Config } from "../../schema/permission-rules.js"
import { onlyTools, permissionRules, permissionsOf, toolMapRules } from "./agent-rules.js"
import { type MarkdownSource, modelOf, readFields } from "./fields.js"

const ToolList = z.union([z.string(), z.array(z.string())], {
  error: "expected tool names, as a list or separated by commas",
})

/**
 * An agent file's front matter: OpenCode's keys (its `tools` map is deprecated there but still
 * read) and Claude Code's (`name`, `tools` as a list, `disallowedTools`). Other keys are ignored.
 */
export const AgentFrontMatter = z.object({
  name: z.string().min(1).optional(),
  description: z.string().optional(),
  mode: Mode.optional(),
  model: z.string().min(1).optional(),
  temperature: z.number().nonnegative().optional(),
  top_p: z.number().min(0).max(1).optional(),
  steps: z.number().int().positive().optional(),
  maxSteps: z.number().int().positive().optional(),
  permission: z
    .union([Action, Config], {
      error:
        'expected "allow", "ask" or "deny", or a map of permissions to one of those or to patterns and theirs',
    })
    .optional(),
  tools: z
    .union([z.record(z.string(), z.boolean()), ToolList], {
      error: "expected a map of tool names to true or false, or a list of tool names",
    })
    .optional(),
  disallowedTools: ToolList.optional(),
  hidden: z.boolean().optional(),
  disable: z.boolean().optional(),
})
export type AgentFrontMatter = z.infer<typeof AgentFrontMatter>

/**
 * The agent a file describes, as `createRuntime`'s `agents` takes it, or "disabled". A new
 * agent (`builtIn` false) starts from the rules the built-in agents start from, as OpenCode's
 * do; one overriding a built-in adds its own rules after the built-in's. Claude Code's agents
 * are sub-agents unless they say otherwise.
 */
export function toAgent(
  data: Record<string, unknown>,
  body: string,
  source: MarkdownSource & { builtIn: boolean },
): AgentOptions | "disabled" {
  const fields = readFields(AgentFrontMatter, data, source.file)
  if (fields.disable === true) return "disabled"
  const own = ownRules(fields)
  const permission = source.builtIn ? own : [...baseRules(), ...own]
  const mode = fields.mode ?? (source.claude ? "subagent" : undefined)
  const model = modelOf(fields.model, source)
  const steps = fields.steps ?? fields.maxSteps
  const prompt = body.trim()
  return {
    ...(fields.description === undefined ? {} : { description: fields.description }),
    ...(mode === undefined ? {} : { mode }),
    ...(model === undefined ? {} : { model }),
    ...(fields.temperature === undefined ? {} : { temperature: fields.temperature }),
    ...(fields.top_p === undefined ? {} : { topP: fields.top_p }),
    ...(steps === undefined ? {} : { steps }),
    ...(fields.hidden === undefined ? {} : { hidden: fields.hidden }),
    ...(prompt === "" ? {} : { prompt }),
    ...(permission.length === 0 ? {} : { permission }),
  }
}

// OpenCode applies the tools map first, then `permission` over it; later rules win here.
function ownRules(fields: AgentFrontMatter) {
  const { tools, disallowedTools, permission } = fields
  const listed = typeof tools === "string" || Array.isArray(tools)
  return [
    ...(tools === undefined ? [] : listed ? onlyTools(permissionsOf([tools].flat())) : toolMapRules(tools)),
    ...(disallowedTools === undefined ? [] : denyAll(permissionsOf([disallowedTools].flat()))),
    ...(permission === undefined ? [] : permissionRules(permission)),
  ]
}

const denyAll = (permissions: string[]) =>
  permissions.map((permission) => ({ permission, pattern: "*", action: "deny" as const }))
