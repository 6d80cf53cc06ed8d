// `agentloop-sdk serve` as a user runs it: a child process serving a module, or the coding preset.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { ownedForSandbox, sandboxUnavailable } from "../tools/sandbox-available.js"
import { CliProcess, fixture, runningClis } from "./cli-process.js"

const basic = (user: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`,
})
const directories: string[] = []
// What the CLI finds on this machine: without bubblewrap it serves unsandboxed, and says why.
const sandboxMissing = sandboxUnavailable() !== undefined

afterAll(() => {
  for (const child of runningClis) child.kill("SIGKILL")
  for (const directory of directories) rmSync(directory, { recursive: true, force: true })
})

describe("agentloop-sdk serve <module>", () => {
  it("serves the runtime options a .ts module exports, says how to attach, and stops cleanly on Ctrl-C", async () => {
    const cli = new CliProcess(["serve", fixture("agent.ts"), "--port", "0"])
    const url = await cli.url()
    expect(cli.stdout).toContain(`opencode attach ${url}`)
    const response = await fetch(`${url}/session`)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual([])

    cli.signal("SIGINT")
    const exit = await cli.exited()
    expect(exit).toMatchObject({ code: 0, signal: null })
    await expect(fetch(`${url}/session`)).rejects.toThrow()
  }, 30_000)

  it("serves a runtime a .js module exports as it is, and stops on SIGTERM", async () => {
    const cli = new CliProcess(["serve", fixture("runtime.mjs"), "--port", "0"])
    const url = await cli.url()
    expect((await fetch(`${url}/session`)).status).toBe(200)
    cli.signal("SIGTERM")
    expect(await cli.exited()).toMatchObject({ code: 0, signal: null })
  }, 30_000)

  it("quits at once on a second Ctrl-C while closing hangs", async () => {
    const cli = new CliProcess(["serve", fixture("slow-close.mjs"), "--port", "0"])
    const url = await cli.url()
    cli.signal("SIGINT")
    await cli.until(/^Stopping/m)
    cli.signal("SIGINT")
    expect((await cli.exited()).code).toBe(130)
    await expect(fetch(`${url}/session`)).rejects.toThrow()
  }, 30_000)

  it("asks for the password of --password as opencode attach sends it (basic auth, user opencode)", async () => {
    const cli = new CliProcess(["serve", fixture("agent.ts"), "--port", "0", "--password", "s3cret"])
    const url = await cli.url()
    const refused = await fetch(`${url}/session`)
    expect(refused.status).toBe(401)
    // A browser asks for the password only when the 401 names the scheme (RFC 9110, 11.6.1).
    expect(refused.headers.get("www-authenticate")).toBe('Basic realm="agentloop", charset="UTF-8"')
    expect((await fetch(`${url}/session`, { headers: basic("opencode", "wrong") })).status).toBe(401)
    expect((await fetch(`${url}/session`, { headers: basic("opencode", "s3cret") })).status).toBe(200)
    expect(cli.stdout).not.toContain("s3cret")
    cli.signal("SIGINT")
    expect((await cli.exited()).code).toBe(0)
  }, 30_000)

  it("takes the password from OPENCODE_SERVER_PASSWORD, and then serves on another host", async () => {
    const cli = new CliProcess(["serve", fixture("agent.ts"), "--port", "0", "--hostname", "0.0.0.0"], {
      env: { OPENCODE_SERVER_PASSWORD: "from-env" },
    })
    const url = await cli.url()
    const port = new URL(url).port
    const local = `http://127.0.0.1:${port}/session`
    expect((await fetch(local)).status).toBe(401)
    expect((await fetch(local, { headers: basic("opencode", "from-env") })).status).toBe(200)
    cli.signal("SIGINT")
    expect((await cli.exited()).code).toBe(0)
  }, 30_000)

  it("serves on a bracketed IPv6 loopback (--hostname '[::1]') and prints its URL with the brackets", async () => {
    const cli = new CliProcess(["serve", fixture("agent.ts"), "--port", "0", "--hostname", "[::1]"])
    const url = await cli.url()
    expect(url).toMatch(/^http:\/\/\[::1\]:\d+$/)
    expect((await fetch(`${url}/session`)).status).toBe(200)
    cli.signal("SIGINT")
    expect((await cli.exited()).code).toBe(0)
  }, 30_000)

  it("refuses a host other than this machine without a password", async () => {
    const cli = new CliProcess(["serve", fixture("agent.ts"), "--port", "0", "--hostname", "0.0.0.0"])
    const exit = await cli.exited()
    expect(exit.code).not.toBe(0)
    expect(exit.stderr).toMatch(/0\.0\.0\.0.*password/)
    expect(exit.stdout).not.toMatch(/^Serving/m)
  }, 30_000)

  it("names a module path that does not exist", async () => {
    const missing = join(tmpdir(), "no-such-agent-module.ts")
    const exit = await new CliProcess(["serve", missing, "--port", "0"]).exited()
    expect(exit.code).not.toBe(0)
    expect(exit.stderr).toContain(missing)
  }, 30_000)

  it("says what to export when the module has no default export", async () => {
    const exit = await new CliProcess(["serve", fixture("no-default.mjs"), "--port", "0"]).exited()
    expect(exit.code).not.toBe(0)
    expect(exit.stderr).toMatch(/no default export/)
  }, 30_000)
})

describe("agentloop-sdk serve, without a module", () => {
  it("serves the coding preset in the current directory with the model the environment names, bash in the sandbox", async () => {
    // Run as root, the directory is an ordinary user's: commands run as its owner.
    const directory = ownedForSandbox(mkdtempSync(join(tmpdir(), "agentloop-cli-")))
    directories.push(directory)
    const cli = new CliProcess(["serve", "--port", "0"], {
      cwd: directory,
      env: { OPENAI_API_KEY: "sk-test-not-used" },
    })
    const url = await cli.url()
    expect(cli.stdout).toContain("gpt-5")
    if (sandboxMissing) expect(cli.stdout).toMatch(/bash is not sandboxed: .* The sandbox cannot start: /)
    else expect(cli.stdout).toMatch(/^Serving .* with bash in a sandbox .* at http/m)
    expect((await fetch(`${url}/session`)).status).toBe(200)
    cli.signal("SIGINT")
    expect((await cli.exited()).code).toBe(0)
  }, 30_000)

  it("says why bash is not sandboxed when the sandbox cannot start, and serves all the same", async () => {
    const directory = mkdtempSync(join(tmpdir(), "agentloop-cli-"))
    directories.push(directory)
    const cli = new CliProcess(["serve", "--port", "0"], {
      cwd: directory,
      // No bwrap on this PATH.
      env: { OPENAI_API_KEY: "sk-test-not-used", PATH: join(directory, "no-bin") },
    })
    const url = await cli.url()
    expect(cli.stdout).toMatch(
      /^Warning: bash is not sandboxed: .* run as you, .* The sandbox cannot start: bwrap is not installed.* Install bubblewrap: .*$/m,
    )
    expect((await fetch(`${url}/session`)).status).toBe(200)
    cli.signal("SIGINT")
    expect((await cli.exited()).code).toBe(0)
  }, 30_000)

  it.runIf(process.getuid?.() === 0 && !sandboxMissing)(
    "run as root in a directory of root's, says bash is not sandboxed and how to make it so",
    async () => {
      const directory = mkdtempSync(join(tmpdir(), "agentloop-cli-"))
      directories.push(directory)
      const cli = new CliProcess(["serve", "--port", "0"], {
        cwd: directory,
        env: { OPENAI_API_KEY: "sk-test-not-used" },
      })
      const url = await cli.url()
      expect(cli.stdout).toMatch(
        /^Warning: bash is not sandboxed: .* The sandbox cannot start: the agent runs as root and .* belongs to root, .* Run the agent as an ordinary user; or chown the directory .*$/m,
      )
      expect((await fetch(`${url}/session`)).status).toBe(200)
      cli.signal("SIGINT")
      expect((await cli.exited()).code).toBe(0)
    },
    30_000,
  )

  it("says which environment variables name a model when none is set", async () => {
    const exit = await new CliProcess(["serve", "--port", "0"]).exited()
    expect(exit.code).not.toBe(0)
    expect(exit.stderr).toMatch(/ANTHROPIC_API_KEY.*OPENAI_API_KEY.*AGENTLOOP_BASE_URL/)
  }, 30_000)
})

describe("agentloop-sdk --help", () => {
  it("prints the usage and exits 0", async () => {
    const exit = await new CliProcess(["--help"]).exited()
    expect(exit.code).toBe(0)
    expect(exit.stdout).toMatch(/agentloop-sdk serve \[module\]/)
    expect(exit.stdout).toMatch(/--port/)
    expect(exit.stdout).toMatch(/--hostname/)
    expect(exit.stdout).toMatch(/--password/)
  }, 30_000)

  it("rejects an unknown option with the usage hint, exit code 2", async () => {
    const exit = await new CliProcess(["serve", "--prot", "1"]).exited()
    expect(exit.code).toBe(2)
    expect(exit.stderr).toMatch(/--prot/)
  }, 30_000)
})
