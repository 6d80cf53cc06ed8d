import { existsSync, readFileSync } from "node:fs"
import { mkdir, rm, symlink } from "node:fs/promises"
import { dirname, join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { type MessageV2, Permission, type Tool } from "../../../src/index.js"
import { createTestRuntime, say } from "../../../src/testing/index.js"
import { runTool } from "../../../src/tool/ai-tools.js"
import { truncateOutput } from "../../../src/tool/truncate.js"
import { bashTool, WorkdirError } from "../../../src/tools/bash/index.js"
import { localOperations } from "../../../src/tools/local-operations.js"
import { permissionHarness, rules, tempProject } from "../helpers.js"

let project: Awaited<ReturnType<typeof tempProject>>
beforeEach(async () => {
  project = await tempProject()
})
afterEach(() => project.cleanup())

/** A context whose asks all pass, recording the metadata updates; `abort` aborts the call. */
function recordingContext() {
  const controller = new AbortController()
  const updates: Record<string, unknown>[] = []
  const context: Tool.Context = {
    sessionID: "session",
    messageID: "message",
    callID: "call-1",
    agent: "build",
    abort: controller.signal,
    metadata: async (update) => {
      if (update.metadata) updates.push(update.metadata)
    },
    ask: async () => {},
  }
  return { context, updates, abort: () => controller.abort() }
}

function bash(options: { timeoutMs?: number; outputDir?: string; home?: string } = {}) {
  return bashTool({ directory: project.directory, operations: localOperations, ...options })
}

describe("bash tool", () => {
  it("runs in the directory and reports a nonzero exit code", async () => {
    const { context } = recordingContext()
    const result = await runTool(
      bash(),
      { command: "pwd; echo oops >&2; exit 3", description: "Fails" },
      context,
    )
    expect(result.title).toBe("Fails")
    expect(result.output).toContain(`${project.directory}\n`)
    expect(result.output).toContain("oops")
    expect(result.output).toContain("[Exit code: 3]")
    expect(result.metadata).toMatchObject({ exit: 3, timedOut: false, aborted: false, truncated: false })
  })

  it("says when there was no output and adds nothing on success", async () => {
    const { context } = recordingContext()
    const result = await runTool(bash(), { command: "true", description: "Does nothing" }, context)
    expect(result.output).toBe("(no output)")
  })

  it("runs in a workdir relative to the directory, and refuses one that does not exist", async () => {
    await mkdir(join(project.directory, "sub"))
    const { context } = recordingContext()
    const result = await runTool(bash(), { command: "pwd", description: "Shows", workdir: "sub" }, context)
    expect(result.output.trim()).toBe(join(project.directory, "sub"))
    const missing = runTool(bash(), { command: "pwd", description: "Shows", workdir: "nope" }, context)
    await expect(missing).rejects.toSatisfy((error) => WorkdirError.isInstance(error))
  })

  it("streams the output so far into the part's metadata while the command runs", async () => {
    const { context, updates } = recordingContext()
    const command = "for i in 1 2 3; do echo $i; sleep 0.25; done"
    const result = await runTool(bash(), { command, description: "Counts" }, context)
    expect(result.metadata.output).toBe("1\n2\n3\n")
    const outputs = updates.map((update) => update.output as string)
    expect(outputs[0]).toBe("")
    // Output shown while running: a start of the final output, growing with each update.
    const partial = outputs.filter((output) => output !== "" && output !== "1\n2\n3\n")
    expect(partial.length).toBeGreaterThan(0)
    for (const [index, output] of outputs.entries()) {
      expect("1\n2\n3\n".startsWith(output)).toBe(true)
      if (index > 0) expect(output.length).toBeGreaterThanOrEqual(outputs[index - 1]!.length)
    }
    expect(updates.every((update) => update.description === "Counts")).toBe(true)
  })

  it("kills the command on timeout and says so", async () => {
    const { context } = recordingContext()
    const started = Date.now()
    const result = await runTool(bash(), { command: "sleep 30", description: "Waits", timeout: 200 }, context)
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(result.output).toContain("timed out after 200 ms")
    expect(result.metadata).toMatchObject({ timedOut: true, exit: null })
  })

  it("uses the tool's default timeout", async () => {
    const { context } = recordingContext()
    const result = await runTool(
      bash({ timeoutMs: 150 }),
      { command: "sleep 30", description: "Waits" },
      context,
    )
    expect(result.metadata.timedOut).toBe(true)
  })

  it("kills the command when the call is aborted", async () => {
    const { context, updates, abort } = recordingContext()
    const original = context.metadata
    context.metadata = async (update) => {
      await original(update)
      if (String(update.metadata?.output).includes("started")) abort()
    }
    const command = "echo started; sleep 30"
    const result = await runTool(bash(), { command, description: "Waits" }, context)
    expect(result.output).toContain("started")
    expect(result.output).toContain("aborted")
    expect(result.metadata.aborted).toBe(true)
    expect(updates.length).toBeGreaterThan(1)
  })

  it("shows the end of a long output and saves all of it to a file whose path it gives", async () => {
    const { context } = recordingContext()
    const outputDir = join(project.root, "outputs")
    const result = await runTool(
      bash({ outputDir }),
      { command: "seq 1 5000", description: "Counts" },
      context,
    )
    const full = Array.from({ length: 5000 }, (_, index) => `${index + 1}\n`).join("")
    const path = result.metadata.outputPath as string
    expect(path.startsWith(outputDir)).toBe(true)
    expect(readFileSync(path, "utf8")).toBe(full)
    expect(result.output).toContain(`full output in ${path}`)
    expect(result.output).toContain("\n5000\n")
    expect(result.output).not.toContain("\n1\n2\n3\n")
    expect(result.metadata.truncated).toBe(true)
    // Within the runtime's own limits: its cut would have dropped the note and the end.
    expect(truncateOutput(result.output).truncated).toBe(false)
  })

  it("saves truncated output under the OS temp directory by default", async () => {
    const { context } = recordingContext()
    const result = await runTool(bash(), { command: "seq 1 3000", description: "Counts" }, context)
    const path = result.metadata.outputPath as string
    expect(path).toMatch(/agentloop-bash-[0-9a-f]+/)
    expect(readFileSync(path, "utf8").split("\n")).toHaveLength(3001)
    await rm(dirname(path), { recursive: true, force: true })
  })

  it("still returns the end of a long output when the port refuses to save it", async () => {
    const { context } = recordingContext()
    const operations = {
      ...localOperations,
      writeFile: async () => {
        throw new Error("read-only")
      },
    }
    const tool = bashTool({ directory: project.directory, operations })
    const result = await runTool(tool, { command: "seq 1 5000", description: "Counts" }, context)
    expect(result.output).toContain("could not be saved (read-only)")
    expect(result.output).toContain("\n5000\n")
    expect(result.metadata.outputPath).toBeUndefined()
  })
})

describe("bash permissions through the rules", () => {
  async function outside() {
    const secret = await project.put("outside/secret.txt", "secret")
    return { secret, folder: join(project.root, "outside") }
  }

  it("asks external_directory first for a path argument outside the directory, then bash", async () => {
    const { folder } = await outside()
    const { run, requests } = await permissionHarness(rules({}))
    await run(bash(), { command: "cat ../outside/secret.txt", description: "Reads" })
    expect(requests).toEqual([
      { permission: "external_directory", patterns: [`${folder}/*`] },
      { permission: "bash", patterns: ["cat ../outside/secret.txt"] },
    ])
  })

  it("runs nothing when an external path is denied", async () => {
    const { secret, folder } = await outside()
    const { run } = await permissionHarness(rules({ external_directory: { [`${folder}/*`]: "deny" } }))
    const removing = run(bash(), { command: "ls && rm -f ../outside/secret.txt", description: "Removes" })
    await expect(removing).rejects.toSatisfy((error) => Permission.DeniedError.isInstance(error))
    const writing = run(bash(), { command: "echo x > ../outside/new.txt", description: "Writes" })
    await expect(writing).rejects.toSatisfy((error) => Permission.DeniedError.isInstance(error))
    expect(existsSync(secret)).toBe(true)
    expect(existsSync(join(folder, "new.txt"))).toBe(false)
  })

  it("resolves symlinks, `..`, `~` and a workdir outside the directory", async () => {
    const { folder } = await outside()
    await symlink(folder, join(project.directory, "link"))
    const { run, requests } = await permissionHarness(rules({}))
    const tool = bash({ home: folder })
    await run(tool, { command: "cat link/secret.txt", description: "Reads" })
    await run(tool, { command: "ls ~", description: "Lists" })
    await run(tool, { command: "cd src/../../outside", description: "Moves" })
    await run(tool, { command: "pwd", description: "Shows", workdir: "../outside" })
    const external = requests.filter((request) => request.permission === "external_directory")
    expect(external).toHaveLength(4)
    for (const request of external) expect(request.patterns).toEqual([`${folder}/*`])
  })

  it("asks no external_directory for paths inside the directory", async () => {
    await project.put("project/src/a.ts", "x")
    const { run, requests } = await permissionHarness(rules({}))
    await run(bash(), { command: "cat src/a.ts && ls ./src > listing.txt", description: "Reads" })
    expect(requests.map((request) => request.permission)).toEqual(["bash"])
  })

  it("runs nothing when a command is denied, however it is written", async () => {
    const file = await project.put("project/keep.txt", "x")
    const { run } = await permissionHarness(rules({ bash: { "rm *": "deny" } }))
    for (const command of [
      "/bin/rm -f keep.txt",
      "ls && command rm keep.txt",
      "'rm' keep.txt",
      "rm\tkeep.txt",
    ]) {
      const removing = run(bash(), { command, description: "Removes" })
      await expect(removing).rejects.toSatisfy((error) => Permission.DeniedError.isInstance(error))
    }
    expect(existsSync(file)).toBe(true)
  })
})

describe("bash in a runtime", () => {
  const tools = (message: MessageV2.WithParts) =>
    message.parts.filter((part): part is MessageV2.ToolPart => part.type === "tool")

  it("asks a pattern per command, and an always answer approves the prefix by arity", async () => {
    const asked: Permission.Request[] = []
    const call = (command: string) => [say.toolCall("bash", { command, description: "Commits" })]
    const { runtime } = createTestRuntime({
      tools: [bash()],
      permission: Permission.fromConfig({ bash: "ask" }),
      turns: [
        call("git commit -m first && git log | head -1"),
        call("git commit -m second"),
        [say.text("done")],
      ],
      onPermission: (request) => {
        asked.push(request)
        return "always"
      },
    })
    const session = await runtime.session.create()
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "commit" }] })

    expect(asked.map(({ permission, patterns, always }) => ({ permission, patterns, always }))).toEqual([
      {
        permission: "bash",
        patterns: ["git commit -m first", "git log", "head -1"],
        always: ["git commit *", "git log *", "head *"],
      },
    ])
    const parts = (await runtime.session.messages(session.id)).flatMap(tools)
    expect(parts.map((part) => part.state.status)).toEqual(["completed", "completed"])
  })
})
