import { execFile } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"
import { SqliteStorage } from "../../src/storage/sqlite/index.js"

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

/** Runs an interactive example, typing `input` once `prompt` shows on its output, as a person would. */
async function interact(args: string[], prompt: string, input: string): Promise<string> {
  // The timeout kills a child still waiting for input it never asked for.
  const child = execFile(process.execPath, ["--import", "tsx", ...args], {
    cwd: root,
    env: offline,
    timeout: 25_000,
  })
  let stdout = ""
  child.stdout?.on("data", (chunk) => {
    stdout += chunk
    if (stdout.includes(prompt) && child.stdin?.writable) child.stdin.end(input)
  })
  const code = await new Promise((resolve, reject) => child.on("exit", resolve).on("error", reject))
  expect(code, stdout).toBe(0)
  return stdout
}

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

  it("coding-cli: a turn loads a skill, follows AGENTS.md, edits a file, and answering no reverts it", async () => {
    const project = mkdtempSync(join(tmpdir(), "agentloop-coding-cli-"))
    writeFileSync(join(project, "greet.ts"), 'export const greet = () => "hello"\n')
    writeFileSync(join(project, "AGENTS.md"), "Greetings name whom they greet.\n")
    mkdirSync(join(project, ".agents/skills/greeting-style"), { recursive: true })
    writeFileSync(
      join(project, ".agents/skills/greeting-style/SKILL.md"),
      "---\nname: greeting-style\ndescription: How greetings are worded\n---\n\nLower case.\n",
    )
    try {
      const stdout = await interact(["examples/coding-cli.ts", project], "Keep these changes?", "n\n")
      expect(stdout).toContain("[skill] Loaded skill: greeting-style")
      expect(stdout).toContain("[edit] greet.ts")
      expect(stdout).toContain('greet() now returns "hello, world". (as AGENTS.md asks) ($0.0254)')
      expect(stdout).toContain("greet.ts: +1 -1")
      expect(stdout).toContain("greet.ts is back as before: true")
      expect(readFileSync(join(project, "greet.ts"), "utf8")).toBe('export const greet = () => "hello"\n')
      // The session database sits in the tree, excluded from the snapshot: the revert left it alone.
      const storage = new SqliteStorage(join(project, ".agentloop", "sessions.db"))
      const [session] = await storage.listSessions({})
      expect(session?.revert?.messageID).toMatch(/^msg_/)
      await storage.close()
    } finally {
      rmSync(project, { recursive: true, force: true })
    }
  }, 30_000)

  it("support: a refund's approval outlives the process and is granted on the app's own route", async () => {
    const stdout = await run("examples/support/run.ts")
    expect(stdout).toMatch(/^Model: scripted: a fake model plays the agent's turns/)
    expect(stdout).toContain("[chat] Let me find your order.")
    expect(stdout).toContain('[approval pending] refund {"orderID":"A1"}')
    expect(stdout).toContain("[process stopped]")
    expect(stdout).toContain("[new process] GET /approvals: refund")
    expect(stdout).toContain(
      'POST /approvals/:id {"approve":true} -> stop: Order A1 (Desk lamp) is refunded: $42.00 goes back to your card.',
    )
    expect(stdout).toContain("Tool calls stored: lookup_order completed, refund completed")
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
