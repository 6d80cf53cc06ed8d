import type { Storage } from "../storage/port.js"
import { evaluate } from "./rules.js"
import { Rule, type Ruleset } from "./schema.js"

export type ApprovalScope = "session" | "runtime"

const PREFIX = "permission/approved/"
const RUNTIME_SCOPE = "runtime"

/**
 * "Always" answers, persisted as allow rules. With session scope an approval given in a
 * session covers that session and its descendants; with runtime scope it covers every
 * session in the storage. One value per approval, so concurrent answers never overwrite
 * each other.
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

    /** Whether approvals cover `permission` for every one of `patterns`. */
    async covers(sessionID: string, permission: string, patterns: readonly string[]): Promise<boolean> {
      const approved = await rulesFor(sessionID)
      return patterns.every((pattern) => evaluate(permission, pattern, approved).action === "allow")
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
