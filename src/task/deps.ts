import type { AgentInfo } from "../agent/info.js"
import type { Bus } from "../bus/bus.js"
import type { WithParts } from "../message/info.js"
import type { ModelRef } from "../message/part.js"
import type { Ruleset } from "../schema/permission.js"
import type { SessionService } from "../session/service.js"
import type { Storage } from "../storage/port.js"

/** What running a sub-agent needs from the runtime. */
export type TaskDeps = {
  agents: Record<string, AgentInfo>
  storage: Storage
  bus: Bus
  session: Pick<SessionService, "create" | "get">
  /** Prompts a child session with a sub-agent (which a host's own prompt may not name). */
  prompt(input: {
    sessionID: string
    agent: string
    model?: ModelRef | undefined
    parts: { type: "text"; text: string }[]
    /** Aborting it cancels the child's run. */
    signal: AbortSignal
  }): Promise<WithParts>
  /** The rules a step of `agent` runs under in the session: what a child may never widen. */
  rulesFor(sessionID: string, agent: string): Promise<Ruleset>
}
