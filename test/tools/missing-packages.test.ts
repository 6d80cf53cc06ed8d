import type { createRequire as CreateRequire } from "node:module"
import { describe, expect, it, vi } from "vitest"

// The bash parser's packages, as if the host never installed them: resolving them fails as Node
// fails for a package that is not in node_modules. Everything else resolves as usual.
const missing = vi.hoisted(() => ({ packages: [] as string[] }))
vi.mock("node:module", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:module")>()
  const createRequire: typeof CreateRequire = (from) => {
    const require = actual.createRequire(from)
    const resolve = ((id: string, options?: { paths?: string[] }) => {
      if (missing.packages.some((name) => id === name || id.startsWith(`${name}/`)))
        throw Object.assign(new Error(`Cannot find module '${id}'`), { code: "MODULE_NOT_FOUND" })
      return require.resolve(id, options)
    }) as NodeJS.RequireResolve
    resolve.paths = require.resolve.paths
    return Object.assign((id: string) => require(id), require, { resolve })
  }
  return { ...actual, createRequire, default: { ...actual, createRequire } }
})

const { bashTool, codingPreset, codingTools, localOperations, MissingPackageError } = await import(
  "../../src/tools/index.js"
)

const { memoryOperations } = await import("./memory-operations.js")

const INSTALL = "npm install web-tree-sitter tree-sitter-bash"

describe("optional packages of the coding tools", () => {
  it("are asked for when the tools are made, with the command that installs them", () => {
    for (const packages of [
      ["web-tree-sitter"],
      ["tree-sitter-bash"],
      ["web-tree-sitter", "tree-sitter-bash"],
    ]) {
      missing.packages = packages
      for (const make of [
        () => codingTools(),
        () => codingPreset({ directory: "/srv" }),
        () => bashTool({ directory: "/srv", operations: localOperations }),
      ]) {
        const error = (() => {
          try {
            make()
          } catch (thrown) {
            return thrown
          }
        })()
        expect(MissingPackageError.isInstance(error), packages.join()).toBe(true)
        expect((error as Error).message).toContain(INSTALL)
        expect((error as InstanceType<typeof MissingPackageError>).data).toMatchObject({
          packages,
          install: INSTALL,
        })
      }
    }
  })

  it("ask for tinyglobby when the tools work on this machine, and only then", () => {
    missing.packages = ["tinyglobby"]
    for (const make of [() => codingTools(), () => codingPreset({ directory: "/srv" })]) {
      const error = (() => {
        try {
          make()
        } catch (thrown) {
          return thrown
        }
      })()
      expect(MissingPackageError.isInstance(error)).toBe(true)
      expect((error as Error).message).toContain("npm install tinyglobby")
    }
    const operations = memoryOperations({}).operations
    expect(codingTools({ directory: "/srv", operations })).toHaveLength(9)
  })

  it("make nothing fail when installed", () => {
    missing.packages = []
    expect(codingTools().map((tool) => tool.id)).toContain("bash")
  })
})
