import { describe, expect, it } from "vitest"
import { Permission } from "../../../src/index.js"
import { bashTool } from "../../../src/tools/bash/index.js"
import type { Operations } from "../../../src/tools/index.js"
import { SandboxPathError } from "../../../src/tools/sandbox/index.js"
import { permissionHarness, rules } from "../helpers.js"
import { memoryOperations } from "../memory-operations.js"

const directory = "/srv/repo"

/**
 * Operations that say they are a sandbox, as `sandboxOperations` does, over a memory file tree:
 * each command prints `output` and exits with `exitCode`.
 */
function fakeSandbox(run: { output?: string; exitCode?: number | null } = {}, network = false) {
  const memory = memoryOperations({ "/srv/repo/a.txt": "a\n", "/elsewhere/b.txt": "b\n" })
  const ran: string[] = []
  const operations: Operations & { sandbox: object } = {
    ...memory.operations,
    async exec(command, { onData }) {
      ran.push(command)
      if (run.output) onData(run.output)
      return { exitCode: run.exitCode === undefined ? 0 : run.exitCode, timedOut: false, aborted: false }
    },
    sandbox: { engine: "bubblewrap", version: "0.8.0", directory, network },
  }
  return { operations, ran }
}

describe("bash in a sandbox, inSandbox: allow", () => {
  it("runs a command the rules leave to ask without asking", async () => {
    const { operations, ran } = fakeSandbox({ output: "hi\n" })
    const harness = await permissionHarness(rules({ bash: "ask", external_directory: "ask" }))
    const bash = bashTool({ directory, operations, inSandbox: "allow" })
    const result = await harness.run(bash, { command: "echo hi && cat /elsewhere/b.txt", description: "Hi" })
    expect(result.output).toBe("hi\n")
    expect(ran).toEqual(["echo hi && cat /elsewhere/b.txt"])
    expect(harness.asked).toEqual([])
  })

  it("still refuses what the rules deny, and runs nothing", async () => {
    const { operations, ran } = fakeSandbox()
    const harness = await permissionHarness(rules({ bash: { "*": "ask", "rm *": "deny" } }))
    const bash = bashTool({ directory, operations, inSandbox: "allow" })
    const call = harness.run(bash, { command: "ls && rm -rf a.txt", description: "Removes" })
    await expect(call).rejects.toSatisfy((error) => Permission.DeniedError.isInstance(error))
    expect(ran).toEqual([])
    expect(harness.asked).toEqual([])
  })

  it("still refuses a path outside the directory that external_directory denies", async () => {
    const { operations, ran } = fakeSandbox()
    const harness = await permissionHarness(rules({ bash: "ask", external_directory: "deny" }))
    const bash = bashTool({ directory, operations, inSandbox: "allow" })
    const call = harness.run(bash, { command: "cat /elsewhere/b.txt", description: "Reads" })
    await expect(call).rejects.toSatisfy((error) => Permission.DeniedError.isInstance(error))
    expect(ran).toEqual([])
  })

  it("asks as always when the operations are not a sandbox", async () => {
    const memory = memoryOperations({ "/srv/repo/a.txt": "a\n" })
    const harness = await permissionHarness(rules({ bash: "ask" }))
    const bash = bashTool({ directory, operations: memory.operations, inSandbox: "allow" })
    await harness.run(bash, { command: "echo hi", description: "Hi" })
    expect(harness.asked.map((request) => request.permission)).toEqual(["bash"])
  })
})

describe("bash in a sandbox, inSandbox: ask (the default)", () => {
  it("asks what the rules leave to ask", async () => {
    const { operations } = fakeSandbox()
    const harness = await permissionHarness(rules({ bash: "ask", external_directory: "ask" }))
    await harness.run(bashTool({ directory, operations }), {
      command: "cat /elsewhere/b.txt",
      description: "Reads",
    })
    expect(harness.asked.map(({ permission, patterns }) => ({ permission, patterns }))).toEqual([
      { permission: "external_directory", patterns: ["/elsewhere/*"] },
      { permission: "bash", patterns: ["cat /elsewhere/b.txt"] },
    ])
  })
})

describe("bash in a sandbox whose port refuses paths outside it", () => {
  /** As `sandboxOperations` does: the host-side file operations reach only the directory. */
  function confined() {
    const { operations, ran } = fakeSandbox({ output: "/usr/lib\n" })
    const refuse = (file: string) => {
      if (!file.startsWith(`${directory}/`) && file !== directory)
        throw new SandboxPathError({
          message: `Refused: ${file} is outside the sandbox.`,
          path: file,
          reason: "outside",
        })
    }
    const port: Operations = {
      ...operations,
      async realpath(file) {
        refuse(file)
        return operations.realpath(file)
      },
      async stat(file) {
        refuse(file)
        return operations.stat(file)
      },
      async list(file) {
        refuse(file)
        return operations.list(file)
      },
    }
    return { operations: port, ran }
  }

  it("runs a command naming a system path, which the sandbox's commands can read, asking for it as written", async () => {
    const { operations, ran } = confined()
    const harness = await permissionHarness(rules({ external_directory: "ask" }))
    const result = await harness.run(bashTool({ directory, operations }), {
      command: "ls -d /usr/lib",
      description: "Lists",
    })
    expect(result.output).toBe("/usr/lib\n")
    expect(ran).toEqual(["ls -d /usr/lib"])
    expect(harness.asked.map(({ permission, patterns }) => ({ permission, patterns }))).toEqual([
      { permission: "external_directory", patterns: ["/usr/*"] },
    ])
  })
})

describe("what the model reads when a sandboxed command fails", () => {
  it("names the sandbox after the exit code", async () => {
    const { operations } = fakeSandbox({
      output: "sh: 1: cannot create /etc/x: Read-only file system\n",
      exitCode: 2,
    })
    const harness = await permissionHarness(rules({}))
    const result = await harness.run(bashTool({ directory, operations }), {
      command: "echo x > /etc/x",
      description: "Writes",
    })
    expect(result.output).toBe(
      "sh: 1: cannot create /etc/x: Read-only file system\n\n\n[Exit code: 2]\n" +
        "[sandbox: writes outside /srv/repo are refused; the network is off]",
    )
  })

  it("says the network is on when the sandbox allows it", async () => {
    const { operations } = fakeSandbox({ exitCode: 1 }, true)
    const harness = await permissionHarness(rules({}))
    const result = await harness.run(bashTool({ directory, operations }), {
      command: "false",
      description: "F",
    })
    expect(result.output).toMatch(/\[sandbox: writes outside \/srv\/repo are refused\]$/)
  })

  it("adds nothing when the command succeeds, or runs outside a sandbox", async () => {
    const { operations } = fakeSandbox({ output: "ok\n" })
    const harness = await permissionHarness(rules({}))
    const ok = await harness.run(bashTool({ directory, operations }), { command: "true", description: "T" })
    expect(ok.output).toBe("ok\n")
    const memory = memoryOperations({ "/srv/repo/a.txt": "a\n" })
    const plain = await harness.run(bashTool({ directory, operations: memory.operations }), {
      command: "false",
      description: "F",
    })
    expect(plain.output).toBe("(no output)\n\n[Exit code: 127]")
  })
})
