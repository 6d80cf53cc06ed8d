import { describe, expect, it } from "vitest"
import { Permission } from "../../src/index.js"

describe("Permission.pathPattern", () => {
  const directory = "/work/project"

  it("makes a path inside the directory relative, with / separators", () => {
    expect(Permission.pathPattern("src/a.ts", directory)).toBe("src/a.ts")
    expect(Permission.pathPattern("./src//b/../a.ts", directory)).toBe("src/a.ts")
    expect(Permission.pathPattern("/work/project/src/a.ts", directory)).toBe("src/a.ts")
    expect(Permission.pathPattern("src\\a.ts", directory)).toBe("src/a.ts")
    expect(Permission.pathPattern("", directory)).toBe(".")
    expect(Permission.pathPattern("src/..", `${directory}/`)).toBe(".")
  })

  it("makes a path that escapes the directory absolute, so no relative rule matches it", () => {
    expect(Permission.pathPattern("src/../../etc/shadow", directory)).toBe("/work/etc/shadow")
    expect(Permission.pathPattern("../../../../etc/shadow", directory)).toBe("/etc/shadow")
    expect(Permission.pathPattern("/etc/shadow", directory)).toBe("/etc/shadow")
    expect(Permission.pathPattern("../project-other/a", directory)).toBe("/work/project-other/a")
    expect(Permission.pathPattern("src\\..\\..\\etc\\shadow", directory)).toBe("/work/etc/shadow")
    const rules = Permission.fromConfig({ read: { "*": "deny", "src/*": "allow" } })
    expect(
      Permission.evaluate("read", Permission.pathPattern("src/../../etc/shadow", directory), rules).action,
    ).toBe("deny")
  })

  it("resolves Windows paths against a drive", () => {
    expect(Permission.pathPattern("src\\a.ts", "C:\\work\\project")).toBe("src/a.ts")
    expect(Permission.pathPattern("src\\..\\..\\x", "C:\\work\\project")).toBe("C:/work/x")
    expect(Permission.pathPattern("D:\\x", "C:\\work\\project")).toBe("D:/x")
  })
})
