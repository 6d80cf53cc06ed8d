import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"

const root = fileURLToPath(new URL("../..", import.meta.url))
// The examples must run offline: a key in the environment would switch the quickstart to a real model.
const offline = Object.fromEntries(
  Object.entries(process.env).filter(
    ([key]) => !["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "AGENTLOOP_BASE_URL"].includes(key),
  ),
)
const run = (file: string) =>
  promisify(execFile)(process.execPath, ["--import", "tsx", file], { cwd: root, env: offline }).then(
    (result) => result.stdout,
  )

describe("examples", () => {
  it("quickstart (npm run demo): tool with permission, question, answer, stored in SQLite", async () => {
    const stdout = await run("examples/quickstart.ts")
    expect(stdout).toMatch(/^Model: scripted: a fake model plays the agent's turns/)
    expect(stdout).toContain("Let me look at the project files first.")
    expect(stdout).toContain("[permission] list . -> allowed once")
    expect(stdout).toContain("[tool] list_files completed")
    expect(stdout).toContain("[question] Which file should I summarise? -> README.md")
    expect(stdout).toContain("README.md says this is a tiny demo project")
    expect(stdout).toContain("- assistant: step-start, tool:question, step-finish")
    expect(stdout).toContain(
      "Final answer (finish: stop):\nREADME.md says this is a tiny demo project made for the agentloop quickstart.",
    )
    expect(stdout).toContain("Cost: $0.014100, tokens in/out: 4050/130")
  }, 30_000)

  it("sessions: stores sessions in SQLite, forks one, and reads both back from a reopened file", async () => {
    const stdout = await run("examples/sessions.ts")
    expect(stdout).toContain('Forked "Demo" before the answer into "Demo (fork #1)"')
    expect(stdout).toContain("- Demo (fork #1): 1 message(s)")
    expect(stdout).toContain("assistant: Just sessions.db.")
    expect(stdout).toMatch(/Typed error: NotFoundError for ses_/)
  }, 30_000)

  it("compaction: a session outgrows a small window, is summarised and carries on", async () => {
    const stdout = await run("examples/compaction.ts")
    expect(stdout).toContain("[event] session.compacted")
    expect(stdout).toContain("Next: error messages with line numbers.")
    expect(stdout).toContain('The last call saw "Write a config parser.": false')
    expect(stdout).toContain("The last call saw the summary: true")
    expect(stdout).toContain("Stored messages: 11; what the model sees now: 5")
  }, 30_000)

  it("revert: the coding tools change files, GitSnapshot records them, a turn is reverted and brought back", async () => {
    const stdout = await run("examples/revert.ts")
    expect(stdout).toContain('After turn 2: export const greet = () => "hello, world"')
    expect(stdout).toContain("Turn 2 changed greet.ts: +1 -1")
    expect(stdout).toContain('After revert to before turn 2: export const greet = () => "hello"')
    expect(stdout).toContain('After unrevert: export const greet = () => "hello, world"')
  }, 30_000)

  it("delegate: two sub-agents run side by side in child sessions and the parent sums up", async () => {
    const stdout = await run("examples/delegate.ts")
    expect(stdout).toContain("[child session] Population of Lisbon (@general sub-agent)")
    expect(stdout).toContain("Population of Porto (@general sub-agent): Porto has 232,000 inhabitants.")
    expect(stdout).toContain("Parent: Both lookups are back")
    expect(stdout).toContain("Cost: $0.007500 for the parent, $0.022500 with its sub-agents")
  }, 30_000)

  it("chat: a terminal chat streams answers, compacts on /compact, and ends with its input", async () => {
    const child = execFile(process.execPath, ["--import", "tsx", "examples/chat.ts", root], {
      cwd: root,
      env: offline,
    })
    child.stdin?.end("hello there\n/compact\nsecond message\n")
    let stdout = ""
    child.stdout?.on("data", (chunk) => {
      stdout += chunk
    })
    await new Promise((resolve, reject) => child.on("exit", resolve).on("error", reject))
    expect(stdout).toContain("(scripted) You said: hello there")
    expect(stdout).toContain("[compacted]")
    expect(stdout).toContain("(scripted) You said: second message")
  }, 30_000)
})
