import { Rule, type Ruleset } from "../schema/permission.js"
import { match } from "../schema/permission-rules.js"
import type { Storage } from "../storage/port.js"

/** How far an `always` reply reaches: the session (and its children) or the whole runtime. */
export type ApprovalScope = "session" | "runtime"

const PREFIX = "permission/approved/"
const RUNTIME_SCOPE = "runtime"

/**
 * "Always" answers, persisted as allow rules and read back literally: an approval names the one
 * permission its request asked (even "*" or "mcp_*" is that name, never a wildcard over
 * permissions, or an "always" to a broad request would approve every tool), and the request's
 * `always` patterns, which keep their wildcards over what the call touches. With session scope
 * an approval given in a session covers that session and its descendants; with runtime scope it
 * covers every session in the storage. One value per approval, so concurrent answers never
 * overwrite each other.
 */
export function createApprovals(storage: Storage, scope: ApprovalScope) {
  /** The scope keys whose approvals apply to a session: itself and its ancestors. */
  async function scopesOf(sessionID: string): Promise<string[]> {
    if (scope === "runtime") return [RUNTIME_SCOPE]
    const chain: string[] = []
    let current: string | undefined = sessionID
    while (current !== undefined && !chain.includes(current)) {
      chain.push(current)
      current = (await storage.getSession(current))?.parentID
    }
    return chain
  }

  async function rulesFor(sessionID: string): Promise<Ruleset> {
    const rules: Ruleset = []
    for (const key of await scopesOf(sessionID)) {
      for (const { value } of await storage.listValues(`${PREFIX}${key}/`)) {
        const parsed = Rule.safeParse(value)
        if (parsed.success) rules.push(parsed.data)
      }
    }
    return rules
  }

  return {
    scopesOf,

    /** Whether approvals of exactly `permission` cover every one of `patterns`. */
    async covers(sessionID: string, permission: string, patterns: readonly string[]): Promise<boolean> {
      const approved = (await rulesFor(sessionID)).filter(
        (rule) => rule.permission === permission && rule.action === "allow",
      )
      return patterns.every((pattern) => approved.some((rule) => match(pattern, rule.pattern)))
    },

    /** The writes that record approvals for `patterns` given in `sessionID`. */
    writes(sessionID: string, permission: string, patterns: readonly string[]) {
      const key = scope === "runtime" ? RUNTIME_SCOPE : sessionID
      return patterns.map((pattern) => ({
        type: "value.put" as const,
        key: `${PREFIX}${key}/${JSON.stringify([permission, pattern])}`,
        value: { permission, pattern, action: "allow" } satisfies Rule,
      }))
    },
  }
}
