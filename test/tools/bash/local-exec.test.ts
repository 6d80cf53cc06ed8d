import { existsSync, readFileSync } from "node:fs"
import { mkdtemp, rm, symlink } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import { localExec } from "../../../src/tools/bash/local-exec.js"
import type { ExecOptions } from "../../../src/tools/operations.js"

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "agentloop-exec-"))
})
afterEach(() => rm(dir, { recursive: true, force: true }))

function collect(extra: Partial<ExecOptions> = {}) {
  const chunks: string[] = []
  const options: ExecOptions = {
    cwd: dir,
    signal: new AbortController().signal,
    onData: (chunk) => chunks.push(chunk),
    ...extra,
  }
  return { chunks, options, text: () => chunks.join("") }
}

/** Whether a process runs: a zombie (dead, not yet reaped) counts as gone. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  const stat = `/proc/${pid}/stat`
  if (!existsSync(stat)) return true
  return readFileSync(stat, "utf8").split(") ")[1]?.[0] !== "Z"
}

const readPid = (file: string) => Number(readFileSync(file, "utf8").trim())

describe("localExec", () => {
  it("streams stdout and stderr as text and resolves with the exit code", async () => {
    const { options, text } = collect()
    const result = await localExec("echo out; echo err >&2; pwd; exit 3", options)
    expect(result).toEqual({ exitCode: 3, timedOut: false, aborted: false })
    expect(text()).toContain("out\n")
    expect(text()).toContain("err\n")
    expect(text()).toContain(`${dir}\n`)
  })

  it("keeps a character whole when its bytes arrive in separate chunks", async () => {
    const { chunks, options, text } = collect()
    // The two bytes of "é", written apart so the pipe delivers them in two reads.
    await localExec("printf '\\303'; sleep 0.1; printf '\\251 ok\\n'", options)
    expect(text()).toBe("é ok\n")
    expect(chunks.some((chunk) => chunk.includes("\ufffd"))).toBe(false)
  })

  it("kills the whole process group on timeout and resolves at once", async () => {
    const pidFile = join(dir, "pid")
    const { options } = collect({ timeoutMs: 200 })
    const started = Date.now()
    const result = await localExec(`sleep 30 & echo $! > ${pidFile}; wait`, options)
    expect(result).toEqual({ exitCode: null, timedOut: true, aborted: false })
    expect(Date.now() - started).toBeLessThan(5_000)
    const pid = readPid(pidFile)
    await vi.waitFor(() => expect(alive(pid)).toBe(false))
  })

  it("kills a grandchild in a nested shell when aborted", async () => {
    const pidFile = join(dir, "pid")
    const controller = new AbortController()
    const { options } = collect({
      signal: controller.signal,
      onData: (chunk) => {
        if (chunk.includes("started")) controller.abort()
      },
    })
    const result = await localExec(`bash -c 'sleep 30 & echo $! > ${pidFile}; echo started; wait'`, options)
    expect(result).toEqual({ exitCode: null, timedOut: false, aborted: true })
    const pid = readPid(pidFile)
    await vi.waitFor(() => expect(alive(pid)).toBe(false))
  })

  it("kills what ignores SIGTERM after the grace period", async () => {
    const { options } = collect({ timeoutMs: 100 })
    const result = await localExec("trap '' TERM; sleep 30 & wait; sleep 30", options)
    expect(result.timedOut).toBe(true)
  })

  it("does not wait for a background job that keeps the output pipe open", async () => {
    const pidFile = join(dir, "pid")
    const { options, text } = collect()
    const started = Date.now()
    const result = await localExec(`sleep 30 & echo $! > ${pidFile}; echo done`, options)
    expect(result).toEqual({ exitCode: 0, timedOut: false, aborted: false })
    expect(text()).toBe("done\n")
    expect(Date.now() - started).toBeLessThan(5_000)
    process.kill(readPid(pidFile), "SIGKILL")
  })

  it("runs nothing when the signal is already aborted", async () => {
    const controller = new AbortController()
    controller.abort()
    const { options } = collect({ signal: controller.signal })
    const result = await localExec(`touch ${join(dir, "ran")}`, options)
    expect(result).toEqual({ exitCode: null, timedOut: false, aborted: true })
    expect(existsSync(join(dir, "ran"))).toBe(false)
  })

  it("stops the command and rejects when onData throws", async () => {
    const failure = new Error("listener failed")
    const { options } = collect({
      onData: () => {
        throw failure
      },
    })
    await expect(localExec("echo x; sleep 30", options)).rejects.toBe(failure)
  })

  it("falls back to sh when bash is not on the PATH", async () => {
    const bin = join(dir, "bin")
    await localExec(`mkdir ${bin}`, collect().options)
    await symlink("/bin/sh", join(bin, "sh"))
    const { options, text } = collect({ env: { PATH: bin } })
    const result = await localExec('echo "$0"', options)
    expect(result.exitCode).toBe(0)
    expect(text()).toBe("sh\n")
  })

  it("passes extra environment variables", async () => {
    const { options, text } = collect({ env: { AGENTLOOP_TEST: "yes" } })
    await localExec("echo $AGENTLOOP_TEST", options)
    expect(text()).toBe("yes\n")
  })
})
