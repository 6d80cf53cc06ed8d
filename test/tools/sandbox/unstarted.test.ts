// Under Deno without --allow-run, spawnSync answers with neither an error nor an exit status
// ({}); the sandbox's probe read that as "bwrap exited with undefined: undefinedundefined".
// test/runtimes/check.ts meets it for real under Deno; here spawnSync answers as Deno's does.
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it, vi } from "vitest"
import { SandboxUnavailableError } from "../../../src/tools/sandbox/errors.js"
import { sandboxOperations } from "../../../src/tools/sandbox/sandbox-operations.js"

const DENIED = "/deno/without/allow-run/bwrap"

vi.mock("node:child_process", async (importOriginal) => {
  const original = await importOriginal<typeof import("node:child_process")>()
  const answer = (file: unknown, ...rest: unknown[]) =>
    file === DENIED ? {} : (original.spawnSync as (...args: unknown[]) => unknown)(file, ...rest)
  return { ...original, spawnSync: answer }
})

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

describe("sandboxOperations when the runtime runs no process (Deno without --allow-run)", () => {
  it("fails with SandboxUnavailableError of reason failed, naming the flag", () => {
    const directory = mkdtempSync(join(tmpdir(), "agentloop-sandbox-unstarted-"))
    dirs.push(directory)
    expect(spawnSync(DENIED, [])).toEqual({})
    let error: unknown
    try {
      sandboxOperations({ directory, bwrap: DENIED })
    } catch (caught) {
      error = caught
    }
    if (!SandboxUnavailableError.isInstance(error)) throw new Error(`not a SandboxUnavailableError: ${error}`)
    expect(error.data.reason).toBe("failed")
    expect(error.message).toContain(`${DENIED} could not be started`)
    expect(error.message).not.toContain("undefined")
    expect(error.data.fix).toContain("--allow-run")
  })
})
