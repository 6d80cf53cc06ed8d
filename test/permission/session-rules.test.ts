import { describe, expect, it } from "vitest"
import { Permission } from "../../src/index.js"
import { type RuledSession, sessionRules } from "../../src/permission/session-rules.js"

const rule = (permission: string, action: Permission.Action, pattern = "*"): Permission.Rule => ({
  permission,
  pattern,
  action,
})

/** Sessions by ID, read the way the runtime reads storage; `reads` counts the lookups. */
function sessions(...list: RuledSession[]) {
  const byID = new Map(list.map((session) => [session.id, session]))
  const source = {
    reads: 0,
    async getSession(sessionID: string) {
      source.reads++
      return byID.get(sessionID)
    },
  }
  return source
}

describe("sessionRules", () => {
  it("puts ancestors' rules root first, then the session's, then ancestors' denies again", async () => {
    const root = { id: "root", permission: [rule("bash", "deny"), rule("read", "allow")] }
    const parent = { id: "parent", parentID: "root", permission: [rule("edit", "deny", "src/*")] }
    const child = { id: "child", parentID: "parent", permission: [rule("*", "allow")] }
    expect(await sessionRules(child, sessions(root, parent))).toEqual([
      rule("bash", "deny"),
      rule("read", "allow"),
      rule("edit", "deny", "src/*"),
      rule("*", "allow"),
      rule("bash", "deny"),
      rule("edit", "deny", "src/*"),
    ])
  })

  it("lets a child narrow, never widen, what its ancestors deny", async () => {
    const parent = { id: "parent", permission: [rule("bash", "deny", "rm *"), rule("read", "allow")] }
    const child = {
      id: "child",
      parentID: "parent",
      permission: [rule("bash", "allow"), rule("read", "ask", "secrets/*")],
    }
    const rules = await sessionRules(child, sessions(parent))
    expect(Permission.evaluate("bash", "rm -rf /", rules).action).toBe("deny")
    expect(Permission.evaluate("bash", "ls", rules).action).toBe("allow")
    expect(Permission.evaluate("read", "secrets/key", rules).action).toBe("ask")
    expect(Permission.evaluate("read", "src/a.ts", rules).action).toBe("allow")
  })

  it("keeps an ancestor's deny whole, even where that ancestor carved an exception after it", async () => {
    const parent = { id: "parent", permission: [rule("bash", "deny"), rule("bash", "allow", "git *")] }
    const child = { id: "child", parentID: "parent" }
    expect(Permission.evaluate("bash", "git status", parent.permission).action).toBe("allow")
    const rules = await sessionRules(child, sessions(parent))
    expect(Permission.evaluate("bash", "git status", rules).action).toBe("deny")
  })

  it("is the session's own rules when it has no parent", async () => {
    const source = sessions()
    expect(await sessionRules({ id: "a", permission: [rule("bash", "ask")] }, source)).toEqual([
      rule("bash", "ask"),
    ])
    expect(await sessionRules({ id: "b" }, source)).toEqual([])
    expect(source.reads).toBe(0)
  })

  it("stops at a missing parent and at a cycle in stored data", async () => {
    const orphan = { id: "orphan", parentID: "gone", permission: [rule("bash", "allow")] }
    expect(await sessionRules(orphan, sessions())).toEqual([rule("bash", "allow")])

    const a: RuledSession = { id: "a", parentID: "b", permission: [rule("a", "deny")] }
    const b: RuledSession = { id: "b", parentID: "a", permission: [rule("b", "deny")] }
    const source = sessions(a, b)
    expect(await sessionRules(a, source)).toEqual([rule("b", "deny"), rule("a", "deny"), rule("b", "deny")])
    expect(source.reads).toBe(1)
  })
})
