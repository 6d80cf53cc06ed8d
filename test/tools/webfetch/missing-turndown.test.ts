import type { createRequire as CreateRequire } from "node:module"
import { afterEach, describe, expect, it, vi } from "vitest"

// turndown as if the host never installed it: importing and resolving it fail as Node fails for
// a package that is not in node_modules. Everything else loads as usual.
vi.mock("../../../src/util/import-optional.js", () => ({
  importOptional: async (specifier: string) => {
    if (specifier === "turndown")
      throw Object.assign(new Error("Cannot find package 'turndown'"), { code: "ERR_MODULE_NOT_FOUND" })
    return import(specifier)
  },
}))
vi.mock("node:module", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:module")>()
  const createRequire: typeof CreateRequire = (from) => {
    const require = actual.createRequire(from)
    const resolve = ((id: string, options?: { paths?: string[] }) => {
      if (id === "turndown" || id.startsWith("turndown/"))
        throw Object.assign(new Error(`Cannot find module '${id}'`), { code: "MODULE_NOT_FOUND" })
      return require.resolve(id, options)
    }) as NodeJS.RequireResolve
    resolve.paths = require.resolve.paths
    return Object.assign((id: string) => require(id), require, { resolve })
  }
  return { ...actual, createRequire, default: { ...actual, createRequire } }
})

const { MissingPackageError } = await import("../../../src/tools/errors.js")
const { webfetchTool } = await import("../../../src/tools/webfetch/index.js")
const { localServer, rejectionOf, toolContext } = await import("./server.js")

let server: Awaited<ReturnType<typeof localServer>> | undefined
afterEach(async () => {
  await server?.close()
})

describe("webfetch without turndown", () => {
  it("is made, fetches HTML as it is, and names the package when HTML is to be converted", async () => {
    server = await localServer((_, response) => {
      response.writeHead(200, { "content-type": "text/html" })
      response.end("<p>hi</p>")
    })
    const tool = webfetchTool({ allowPrivate: true })
    const { run } = toolContext()
    expect((await run(tool, { url: server.url(), format: "html" })).output).toBe("<p>hi</p>")
    for (const format of ["markdown", "text"]) {
      const error = await rejectionOf(run(tool, { url: server.url(), format }))
      expect(MissingPackageError.isInstance(error), format).toBe(true)
      expect(error.message).toContain("npm install turndown")
    }
  })
})
