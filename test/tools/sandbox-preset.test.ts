// The coding preset and tools on the sandbox (`sandbox: true`): real bubblewrap. Without it (or
// without user namespaces) the bubblewrap cases are skipped loudly, except in CI, where they fail.
import { randomBytes } from "node:crypto"
import { existsSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import { InvalidInputError } from "../../src/error/invalid-input.js"
import type { Tool } from "../../src/index.js"
import { codingPreset, codingTools, localOperations, SandboxPathError } from "../../src/tools/index.js"
import { permissionHarness, rules, tempProject } from "./helpers.js"
import { ownedForSandbox, skipWithoutSandbox } from "./sandbox-available.js"

const skipped = skipWithoutSandbox("the coding tools on the sandbox")

let project: Awaited<ReturnType<typeof tempProject>>
beforeEach(async () => {
  project = await tempProject()
  ownedForSandbox(project.root)
  ownedForSandbox(project.directory)
})
afterEach(() => project.cleanup())

const tool = (tools: Tool.Info[], id: string) => tools.find((found) => found.id === id)!

describe("codingTools({ sandbox })", () => {
  it("refuses operations of the host's own together with a sandbox", () => {
    const thrown = (make: () => unknown) => {
      try {
        make()
      } catch (error) {
        return error
      }
      return undefined
    }
    const both = thrown(() =>
      codingTools({ directory: project.directory, operations: localOperations, sandbox: true }),
    )
    expect(InvalidInputError.isInstance(both)).toBe(true)
    expect((both as Error).message).toMatch(/either operations or sandbox/)
    const preset = thrown(() => codingPreset({ operations: localOperations, sandbox: { network: true } }))
    expect(InvalidInputError.isInstance(preset)).toBe(true)
  })
})

describe.skipIf(skipped)("the coding preset on the sandbox", () => {
  it("reads no global instruction file and offers webfetch only with the sandbox's network on", async () => {
    await project.put("home/.config/opencode/AGENTS.md", "GLOBAL notes\n")
    await project.put("project/AGENTS.md", "PROJECT rules\n")
    vi.stubEnv("HOME", join(project.root, "home"))
    try {
      const turn = {
        sessionID: "ses_x",
        directory: project.directory,
        agent: "build",
        signal: new AbortController().signal,
      }
      const read = async (preset: ReturnType<typeof codingPreset>) =>
        (await Promise.all(preset.instructions.map((source) => source(turn)))).flat().join("\n")
      const local = codingPreset({ directory: project.directory })
      expect(await read(local)).toContain("GLOBAL notes")
      const confined = codingPreset({ directory: project.directory, sandbox: true })
      const text = await read(confined)
      expect(text).toContain("PROJECT rules")
      expect(text).not.toContain("GLOBAL notes")
      expect(confined.tools.map((entry) => entry.id)).not.toContain("webfetch")
      const online = codingPreset({ directory: project.directory, sandbox: { network: true } })
      expect(online.tools.map((entry) => entry.id)).toContain("webfetch")
    } finally {
      vi.unstubAllEnvs()
    }
  })

  it("runs bash in the directory without asking, and names the sandbox when a write outside fails", async () => {
    const preset = codingPreset({ directory: project.directory, sandbox: true, bashInSandbox: "allow" })
    const harness = await permissionHarness(rules({ bash: "ask", external_directory: "ask" }))
    const bash = tool(preset.tools, "bash")

    const inside = await harness.run(bash, { command: "echo hi > f && cat f", description: "Writes" })
    expect(inside.output).toBe("hi\n")
    expect(await readFile(join(project.directory, "f"), "utf8")).toBe("hi\n")

    // The system is read-only; writes to /tmp (and beside the directory) land in a private /tmp.
    const outside = `/etc/agentloop-${randomBytes(4).toString("hex")}`
    const refused = await harness.run(bash, { command: `echo x > ${outside}`, description: "Writes out" })
    expect(refused.metadata.exit).not.toBe(0)
    expect(refused.output).toMatch(
      new RegExp(`\\[sandbox: writes outside ${project.directory} are refused; the network is off\\]$`),
    )
    expect(existsSync(outside)).toBe(false)
    expect(harness.asked).toEqual([])
  })

  it("passes the sandbox options on: the variables it sets", async () => {
    const tools = codingTools({ directory: project.directory, sandbox: { env: { GREETING: "hello" } } })
    const harness = await permissionHarness(rules({}))
    const result = await harness.run(tool(tools, "bash"), {
      command: "echo $GREETING",
      description: "Greets",
    })
    expect(result.output).toBe("hello\n")
  })

  it("fails a file tool on a path outside the directory with the sandbox's error", async () => {
    const secret = await project.put("secret.txt", "key\n")
    const tools = codingTools({ directory: project.directory, sandbox: true })
    const harness = await permissionHarness(rules({}))
    const read = harness.run(tool(tools, "read"), { filePath: secret })
    await expect(read).rejects.toSatisfy(
      (error) => SandboxPathError.isInstance(error) && error.message.includes(secret),
    )
    const write = harness.run(tool(tools, "write"), { filePath: secret, content: "changed\n" })
    await expect(write).rejects.toSatisfy((error) => SandboxPathError.isInstance(error))
    expect(await readFile(secret, "utf8")).toBe("key\n")
  })
})
