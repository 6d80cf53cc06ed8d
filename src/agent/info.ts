import { z } from "zod"
import { ModelRef } from "../message/part.js"
import { Ruleset } from "../schema/permission.js"

/**
 * Who an agent is for: `primary` agents talk to the user, `subagent`s are only started by
 * another agent (they cannot ask the user anything), `all` can be both.
 */
export const Mode = z.enum(["primary", "subagent", "all"])
export type Mode = z.infer<typeof Mode>

/** An agent: a system prompt, model settings and the permission rules its tools run under. */
export const Info = z.object({
  name: z.string().min(1),
  /** When to use this agent; shown to people choosing an agent and to agents starting sub-agents. */
  description: z.string().optional(),
  mode: Mode,
  /** The system prompt. Without one the build agent's prompt is used. */
  prompt: z.string().optional(),
  /** The model this agent runs on unless a prompt names one (a sub-agent always runs on it). */
  model: ModelRef.optional(),
  temperature: z.number().nonnegative().optional(),
  topP: z.number().min(0).max(1).optional(),
  /** The agent's own rules; the last matching rule wins. */
  permission: Ruleset,
  /** At most this many model calls per turn; the last one must answer without tools. */
  steps: z.number().int().positive().optional(),
  /**
   * What a rejected permission or dismissed question does to the turn: "stop" ends it (OpenCode's
   * behaviour), "continue" tells the model who refused and lets it answer. Default: the runtime's.
   */
  rejection: z.enum(["stop", "continue"]).optional(),
  /** Internal agents (titles, summaries, compaction) that no one picks directly. */
  hidden: z.boolean().optional(),
})
export type Info = z.infer<typeof Info>

/** `Info` under the name files outside the `Agent` namespace's folder import it by. */
export { Info as AgentInfo }
