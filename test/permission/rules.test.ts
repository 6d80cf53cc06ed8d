import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { InvalidInputError, Permission } from "../../src/index.js"

describe("Permission.match", () => {
  it("treats * as any run, ? as one character, and the rest literally", () => {
    expect(Permission.match("src/a.ts", "src/*")).toBe(true)
    expect(Permission.match("src/a.ts", "src/?.ts")).toBe(true)
    expect(Permission.match("src/ab.ts", "src/?.ts")).toBe(false)
    expect(Permission.match("a+b(c)", "a+b(c)")).toBe(true)
    expect(Permission.match("aab", "a+b")).toBe(false)
    expect(Permission.match("x.ts", "*.ts")).toBe(true)
    expect(Permission.match("xts", "*.ts")).toBe(false)
    expect(Permission.match("$HOME", "$HOME")).toBe(true)
  })

  it("anchors both ends", () => {
    expect(Permission.match("git status --short", "git status")).toBe(false)
    expect(Permission.match("sudo git status", "git *")).toBe(false)
  })

  it('lets "cmd *" match the bare command but not a longer word', () => {
    expect(Permission.match("ls", "ls *")).toBe(true)
    expect(Permission.match("ls -la", "ls *")).toBe(true)
    expect(Permission.match("lstmeval", "ls *")).toBe(false)
    expect(Permission.match("lstmeval", "ls*")).toBe(true)
  })

  it("treats backslashes as slashes, on both sides", () => {
    expect(Permission.match("C:\\work\\src\\a.ts", "C:/work/src/*")).toBe(true)
    expect(Permission.match("C:/work/src/a.ts", "C:\\work\\src\\*")).toBe(true)
  })

  it("matches across newlines", () => {
    expect(Permission.match("echo a\necho b", "echo *")).toBe(true)
  })

  it("agrees with a reference matcher on random patterns (property)", () => {
    const symbols = ["a", "b", " ", "/", "\\", ".", "(", "$", "+"]
    const value = fc.array(fc.constantFrom(...symbols), { maxLength: 10 }).map((chars) => chars.join(""))
    const pattern = fc
      .array(fc.constantFrom(...symbols, "*", "?"), { maxLength: 8 })
      .map((chars) => chars.join(""))
    fc.assert(
      fc.property(value, pattern, (text, glob) => Permission.match(text, glob) === reference(text, glob)),
      { numRuns: 3000 },
    )
  })
})

/** A matcher written the slow, obvious way: dynamic programming over characters. */
function reference(value: string, pattern: string): boolean {
  const text = value.replaceAll("\\", "/")
  const glob = pattern.replaceAll("\\", "/")
  if (glob.endsWith(" *") && wildcard(text, glob.slice(0, -2))) return true
  return wildcard(text, glob)
}

function wildcard(text: string, glob: string): boolean {
  const table = Array.from({ length: glob.length + 1 }, () => new Array<boolean>(text.length + 1).fill(false))
  table[0]![0] = true
  for (let p = 1; p <= glob.length; p++) {
    const symbol = glob[p - 1]
    for (let t = 0; t <= text.length; t++) {
      if (symbol === "*") table[p]![t] = table[p - 1]![t]! || (t > 0 && table[p]![t - 1]!)
      else if (t > 0) table[p]![t] = table[p - 1]![t - 1]! && (symbol === "?" || symbol === text[t - 1])
    }
  }
  return table[glob.length]![text.length]!
}

describe("Permission.evaluate", () => {
  const allow = (permission: string, pattern: string) => ({ permission, pattern, action: "allow" as const })
  const deny = (permission: string, pattern: string) => ({ permission, pattern, action: "deny" as const })

  it("lets the last matching rule win, in either order", () => {
    expect(Permission.evaluate("bash", "rm -rf /", [allow("bash", "*"), deny("bash", "rm *")]).action).toBe(
      "deny",
    )
    expect(Permission.evaluate("bash", "rm -rf /", [deny("bash", "rm *"), allow("bash", "*")]).action).toBe(
      "allow",
    )
  })

  it("lets later rulesets override earlier ones", () => {
    const agent = [deny("edit", "*")]
    const session = [allow("edit", "src/*")]
    expect(Permission.evaluate("edit", "src/a.ts", agent, session).action).toBe("allow")
    expect(Permission.evaluate("edit", "README.md", agent, session).action).toBe("deny")
    expect(Permission.evaluate("edit", "src/a.ts", session, agent).action).toBe("deny")
  })

  it("matches permissions by wildcard, such as mcp_*", () => {
    const rules = [deny("mcp_*", "*"), allow("mcp_github_*", "*")]
    expect(Permission.evaluate("mcp_slack_post", "x", rules).action).toBe("deny")
    expect(Permission.evaluate("mcp_github_issue", "x", rules).action).toBe("allow")
    expect(Permission.evaluate("bash", "x", rules).action).toBe("ask")
  })

  it("matches permission names and patterns case-sensitively, as tool ids and Linux paths are", () => {
    const rules = [deny("Guarded", "*"), deny("edit", "SRC/*"), allow("BASH", "*")]
    expect(Permission.evaluate("guarded", "x", rules).action).toBe("ask")
    expect(Permission.evaluate("Guarded", "x", rules).action).toBe("deny")
    expect(Permission.evaluate("edit", "src/a.ts", rules).action).toBe("ask")
    expect(Permission.evaluate("edit", "SRC/a.ts", rules).action).toBe("deny")
    expect(Permission.evaluate("bash", "ls", rules).action).toBe("ask")
    expect(Permission.match("README.md", "readme.*")).toBe(false)
    expect(Permission.disabled(["guarded"], rules)).toEqual(new Set())
  })

  it("asks when nothing matches", () => {
    expect(Permission.evaluate("webfetch", "https://example.com")).toEqual({
      permission: "webfetch",
      pattern: "*",
      action: "ask",
    })
  })

  it("merges rulesets by concatenation", () => {
    expect(Permission.merge([allow("a", "*")], [], [deny("b", "*")])).toEqual([
      allow("a", "*"),
      deny("b", "*"),
    ])
  })
})

describe("Permission.fromConfig", () => {
  it("turns a config into rules in key order", () => {
    expect(Permission.fromConfig({ bash: "allow", edit: { "*": "deny", "src/*": "allow" } })).toEqual([
      { permission: "bash", pattern: "*", action: "allow" },
      { permission: "edit", pattern: "*", action: "deny" },
      { permission: "edit", pattern: "src/*", action: "allow" },
    ])
  })

  it("expands ~, ~/ and $HOME", () => {
    const rules = Permission.fromConfig(
      { external_directory: { "~": "allow", "~/code/*": "allow", "$HOME/tmp/*": "deny", "/etc/~x": "deny" } },
      { home: "/home/ada" },
    )
    expect(rules.map((rule) => rule.pattern)).toEqual([
      "/home/ada",
      "/home/ada/code/*",
      "/home/ada/tmp/*",
      "/etc/~x",
    ])
  })

  it("refuses an unknown action, naming the key", () => {
    const error = (() => {
      try {
        Permission.fromConfig({ bash: "sometimes" } as never)
      } catch (caught) {
        return caught
      }
    })()
    expect(InvalidInputError.isInstance(error)).toBe(true)
    expect((error as InvalidInputError).message).toContain("bash")
  })
})

describe("Permission.disabled", () => {
  it("lists tools whose last rule denies everything; edit-style tools share edit", () => {
    const rules = Permission.fromConfig({
      edit: "deny",
      bash: { "*": "deny", "ls *": "allow" },
      webfetch: "deny",
    })
    rules.push({ permission: "webfetch", pattern: "*", action: "allow" })
    expect(Permission.disabled(["edit", "write", "patch", "bash", "read", "webfetch"], rules)).toEqual(
      new Set(["edit", "write", "patch"]),
    )
  })
})
