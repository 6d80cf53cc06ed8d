import type { Ruleset } from "../schema/permission.js"

/** What the rules need of a session: its own rules and where it hangs. */
export type RuledSession = { id: string; parentID?: string | undefined; permission?: Ruleset | undefined }

/** Where ancestors are read from; the runtime's Storage is one. */
export type SessionSource = { getSession(sessionID: string): Promise<RuledSession | undefined> }

/**
 * A session's rules with its ancestors': every ancestor's rules root first, then the session's
 * own (so a child inherits what its ancestors allow or ask, and may override that), then every
 * ancestor's `deny` rules again, so no allow or ask further down can win over them: a child can
 * narrow what its ancestors deny, never widen it.
 *
 * One flat ruleset keeps every caller (`evaluate`, `disabled`, the asks of tools) unchanged. The
 * price: an exception an ancestor carves after its own deny (`bash *` deny, then `git *` allow)
 * does not reach its descendants, whom the re-appended deny covers whole. Last-match rules cannot
 * express "deny except where the ancestor allowed", so this errs on the side of denying.
 */
export async function sessionRules(session: RuledSession, sessions: SessionSource): Promise<Ruleset> {
  const ancestors = await ancestorsOf(session, sessions)
  const inherited = ancestors.flatMap((ancestor) => ancestor.permission ?? [])
  const denied = inherited.filter((rule) => rule.action === "deny")
  return [...inherited, ...(session.permission ?? []), ...denied]
}

/** The session's ancestors, root first; a missing parent or a cycle in stored data ends the chain. */
async function ancestorsOf(session: RuledSession, sessions: SessionSource): Promise<RuledSession[]> {
  const chain: RuledSession[] = []
  const seen = new Set([session.id])
  let parentID = session.parentID
  while (parentID !== undefined && !seen.has(parentID)) {
    seen.add(parentID)
    const parent = await sessions.getSession(parentID)
    if (!parent) break
    chain.unshift(parent)
    parentID = parent.parentID
  }
  return chain
}
