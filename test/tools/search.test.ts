import { execFileSync } from "node:child_process"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { globTool } from "../../src/tools/glob.js"
import { grepTool } from "../../src/tools/grep.js"
import { listTool } from "../../src/tools/list.js"
import { localOperations } from "../../src/tools/local-operations.js"
import type { ExecOptions, Operations } from "../../src/tools/operations.js"
import { ripgrepCommand, ripgrepProbe } from "../../src/tools/ripgrep.js"
import { permissionHarness, rules, tempProject } from "./helpers.js"

let project: Awaited<ReturnType<typeof tempProject>>
beforeEach(async () => {
  project = await tempProject()
})
afterEach(() => project.cleanup())

const base = () => ({ directory: project.directory, operations: localOperations })

async function call(
  tool: Parameters<Awaited<ReturnType<typeof permissionHarness>>["run"]>[0],
  input: unknown,
) {
  return (await permissionHarness(rules({}))).run(tool, input)
}

describe("glob", () => {
  it("lists matches newest first", async () => {
    await project.put("project/src/old.ts", "", 1_000)
    await project.put("project/src/new.ts", "", 3_000)
    await project.put("project/mid.ts", "", 2_000)
    await project.put("project/readme.md", "", 4_000)
    const result = await call(globTool(base()), { pattern: "**/*.ts" })
    expect(result.output).toBe("src/new.ts\nmid.ts\nsrc/old.ts")
  })

  it("searches under path and shows paths from the working directory", async () => {
    await project.put("project/src/a.ts", "")
    await project.put("project/other/b.ts", "")
    const result = await call(globTool(base()), { pattern: "*.ts", path: "src" })
    expect(result.output).toBe("src/a.ts")
  })

  it("caps at 100 files with a note", async () => {
    for (let index = 0; index < 105; index++) await project.put(`project/f${index}.txt`, "", 1_000 + index)
    const result = await call(globTool(base()), { pattern: "*.txt" })
    const lines = result.output.split("\n")
    expect(lines[0]).toBe("f104.txt")
    expect(lines.filter((line) => line.endsWith(".txt"))).toHaveLength(100)
    expect(result.output).toContain("(Showing the 100 most recently modified of 105 files.")
    expect(result.metadata).toMatchObject({ count: 105, truncated: true })
  })

  it("skips dependency directories unless the pattern names them", async () => {
    await project.put("project/node_modules/x/index.js", "")
    await project.put("project/.git/hooks/pre.js", "")
    await project.put("project/app.js", "")
    expect((await call(globTool(base()), { pattern: "**/*.js" })).output).toBe("app.js")
    expect((await call(globTool(base()), { pattern: "node_modules/**/*.js" })).output).toBe(
      "node_modules/x/index.js",
    )
  })

  it("finds dotfiles", async () => {
    await project.put("project/.github/ci.yml", "")
    expect((await call(globTool(base()), { pattern: "**/*.yml" })).output).toBe(".github/ci.yml")
  })
})

describe("grep without ripgrep", () => {
  const tool = () => grepTool({ ...base(), hasRipgrep: async () => false })

  it("groups matching lines by file, the newest file first", async () => {
    await project.put("project/old.ts", "const needle = 1\nother\nneedle()\n", 1_000)
    await project.put("project/new.ts", "needle here\n", 2_000)
    await project.put("project/none.ts", "nothing\n", 3_000)
    const result = await call(tool(), { pattern: "needle" })
    expect(result.output).toBe(
      "Found 3 matches\n\nnew.ts:\n  Line 1: needle here\n\nold.ts:\n  Line 1: const needle = 1\n  Line 3: needle()",
    )
    expect(result.metadata).toMatchObject({ matches: 3, ripgrep: false })
  })

  it("filters files with include and takes a regular expression", async () => {
    await project.put("project/a.ts", "fooBar\n")
    await project.put("project/b.md", "fooBar\n")
    await project.put("project/src/c.tsx", "foo_bar\n")
    const result = await call(tool(), { pattern: "foo[A-Z_]", include: "*.{ts,tsx}" })
    expect(result.output).toContain("a.ts:\n  Line 1: fooBar")
    expect(result.output).toContain("src/c.tsx:\n  Line 1: foo_bar")
    expect(result.output).not.toContain("b.md")
  })

  it("understands a leading (?i) as ripgrep does", async () => {
    await project.put("project/a.txt", "HELLO\n")
    expect((await call(tool(), { pattern: "(?i)hello" })).output).toContain("Line 1: HELLO")
  })

  it("skips binary files and ignored directories", async () => {
    await project.put("project/blob.dat", Uint8Array.from([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0]))
    await project.put("project/node_modules/dep/a.js", "needle\n")
    await project.put("project/ok.js", "needle\n")
    expect((await call(tool(), { pattern: "needle" })).output).toBe(
      "Found 1 match\n\nok.js:\n  Line 1: needle",
    )
  })

  it("caps at 100 matches with a note", async () => {
    await project.put("project/many.txt", "hit\n".repeat(150))
    const result = await call(tool(), { pattern: "hit" })
    expect(result.output.match(/ {2}Line \d+: hit/g)).toHaveLength(100)
    expect(result.output).toContain("(Showing 100 of 150 matches.")
  })

  it("searches a single file given as path", async () => {
    await project.put("project/src/a.ts", "needle\n")
    await project.put("project/src/b.ts", "needle\n")
    expect((await call(tool(), { pattern: "needle", path: "src/b.ts" })).output).toBe(
      "Found 1 match\n\nsrc/b.ts:\n  Line 1: needle",
    )
  })

  it("rejects an invalid regular expression before asking anything", async () => {
    const harness = await permissionHarness(rules({}))
    await expect(harness.run(tool(), { pattern: "(" })).rejects.toThrow("Invalid regular expression")
    expect(harness.requests).toEqual([])
  })

  it("is what runs when the operations cannot find rg", async () => {
    await project.put("project/a.txt", "needle\n")
    const noRipgrep: Operations = {
      ...localOperations,
      async exec(command, options) {
        // A shell where rg is not installed.
        if (command.startsWith("rg ")) return { exitCode: 127, timedOut: false, aborted: false }
        return localOperations.exec(command, options)
      },
    }
    const result = await call(grepTool({ ...base(), operations: noRipgrep }), { pattern: "needle" })
    expect(result.metadata).toMatchObject({ ripgrep: false })
  })
})

// CI installs ripgrep (.ci/run), so this runs there; a machine without rg says so here.
const ripgrepInstalled = (() => {
  try {
    execFileSync("rg", ["--version"], { stdio: "ignore" })
    return true
  } catch {
    console.warn("SKIPPED: grep with the real ripgrep (rg is not installed); CI installs it")
    return false
  }
})()

describe.runIf(ripgrepInstalled)("grep with the real ripgrep", () => {
  it("finds what the JS fallback finds, in the same order and format", async () => {
    await project.put("project/src/old.ts", "const needle = 1\nother\nneedle()\n", 1_000)
    await project.put("project/src/new.tsx", "needle here\nNEEDLE loud\n", 2_000)
    await project.put("project/docs/a b.md", "a needle in a doc\n", 3_000)
    await project.put("project/node_modules/dep/a.js", "needle\n", 4_000)
    await project.put("project/.hidden/x.ts", "needle hidden\n", 5_000)
    await project.put("project/blob.dat", Uint8Array.from([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0]), 6_000)
    const real = grepTool(base())
    const fallback = grepTool({ ...base(), hasRipgrep: async () => false })
    for (const input of [
      { pattern: "needle" },
      { pattern: "(?i)needle", include: "*.{ts,tsx}" },
      { pattern: "needle\\(", path: "src" },
      { pattern: "in a" },
    ]) {
      const viaRipgrep = await call(real, input)
      const viaFallback = await call(fallback, input)
      expect(viaRipgrep.metadata).toMatchObject({ ripgrep: true })
      expect(viaRipgrep.output).toBe(viaFallback.output)
    }
  })
})

describe("grep with ripgrep", () => {
  /** Operations whose exec pretends to be rg: it answers --version, and a search with canned JSON. */
  function fakeRipgrep(lines: object[]) {
    const commands: string[] = []
    const operations: Operations = {
      ...localOperations,
      async exec(command: string, options: ExecOptions) {
        commands.push(command)
        if (command === "rg --version") return { exitCode: 0, timedOut: false, aborted: false }
        // Split mid-line, as a pipe may deliver it.
        const output = `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`
        options.onData(output.slice(0, 7))
        options.onData(output.slice(7))
        return { exitCode: lines.length > 0 ? 0 : 1, timedOut: false, aborted: false }
      },
    }
    return { operations, commands }
  }
  const match = (path: string, line: number, text: string) => ({
    type: "match",
    data: {
      path: { text: path },
      lines: { text: `${text}\n` },
      line_number: line,
      absolute_offset: 0,
      submatches: [],
    },
  })

  it("runs rg once found, and reports its matches sorted by file time", async () => {
    await project.put("project/a.ts", "", 1_000)
    await project.put("project/b.ts", "", 2_000)
    const { operations, commands } = fakeRipgrep([
      { type: "begin", data: { path: { text: "./a.ts" } } },
      match("./a.ts", 3, "needle a"),
      match("./b.ts", 7, "needle b"),
      { type: "summary", data: {} },
    ])
    const tool = grepTool({ directory: project.directory, operations })
    const result = await call(tool, { pattern: "needle", include: "*.ts" })
    expect(result.output).toBe("Found 2 matches\n\nb.ts:\n  Line 7: needle b\n\na.ts:\n  Line 3: needle a")
    expect(result.metadata).toMatchObject({ ripgrep: true })
    await call(tool, { pattern: "it's" })
    expect(commands.filter((command) => command === "rg --version")).toHaveLength(1)
    expect(commands[1]).toContain("--glob '*.ts' --regexp needle -- .")
    expect(commands[2]).toContain(`--regexp 'it'\\''s' -- .`)
  })

  it("builds a command with quoted arguments and the ignored directories excluded", () => {
    const command = ripgrepCommand({
      pattern: "a b",
      cwd: "/",
      target: ".",
      signal: new AbortController().signal,
    })
    expect(command).toMatch(/^rg --json --hidden --no-messages --glob '!\.git' --glob '!node_modules' /)
    expect(command).toMatch(/--regexp 'a b' -- \.$/)
  })

  it("probes once per probe, and a port that cannot run commands has no rg", async () => {
    let runs = 0
    const operations = {
      ...localOperations,
      exec: async () => {
        runs++
        throw new Error("no processes here")
      },
    }
    const probe = ripgrepProbe(operations, project.directory)
    expect(await probe()).toBe(false)
    expect(await probe()).toBe(false)
    expect(runs).toBe(1)
  })
})

describe("list", () => {
  it("draws a tree, directories first, skipping dependency and build directories", async () => {
    await project.put("project/src/index.ts", "")
    await project.put("project/src/lib/util.ts", "")
    await project.put("project/README.md", "")
    await project.put("project/node_modules/dep/index.js", "")
    await project.put("project/dist/index.js", "")
    await project.put("project/.git/HEAD", "")
    await project.put("project/__pycache__/x.pyc", "")
    const result = await call(listTool(base()), {})
    expect(result.output).toBe("./\n  src/\n    lib/\n      util.ts\n    index.ts\n  README.md")
  })

  it("leaves out what ignore names", async () => {
    await project.put("project/a.log", "")
    await project.put("project/fixtures/big.json", "")
    await project.put("project/keep.ts", "")
    const result = await call(listTool(base()), { ignore: ["*.log", "fixtures/"] })
    expect(result.output).toBe("./\n  keep.ts")
  })

  it("caps at 100 entries, top levels first", async () => {
    for (let index = 0; index < 60; index++) await project.put(`project/deep/f${index}.txt`, "")
    for (let index = 0; index < 60; index++) await project.put(`project/top${index}.txt`, "")
    const result = await call(listTool(base()), { path: "." })
    expect(result.output).toContain("  top59.txt")
    expect(result.output).toContain("(Showing the first 100 entries.")
    expect(result.metadata).toMatchObject({ count: 100, truncated: true })
  })
})
