// The package's parts beyond the core under Bun or Deno, each cheap to try: the bash tool's
// tree-sitter parsing, GitSnapshot, the bubblewrap sandbox, the server's serve(), the CLI, and
// PostgresStorage (when POSTGRES_URL names a server). argv: the parts to run (default all).
// Prints "ok <part>: ..." per part, "SKIPPED <part>: why" for one whose host tool is missing.
import { ok, strictEqual } from "node:assert/strict"
import { spawn } from "node:child_process"
import { chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createRuntime } from "agentloop-sdk"
import { createServer, serve } from "agentloop-sdk/server"
import { GitSnapshot } from "agentloop-sdk/snapshot/git"
import { PostgresStorage } from "agentloop-sdk/storage/postgres"
import { createTestRuntime, say, scriptedModel, testModelInfo } from "agentloop-sdk/testing"
import { codingTools, SandboxUnavailableError, sandboxOperations } from "agentloop-sdk/tools"

const folder = () => mkdtempSync(join(process.cwd(), "part-"))

async function bash(): Promise<string> {
  const directory = folder()
  const asked: string[] = []
  const { runtime } = createTestRuntime({
    tools: codingTools({ directory }),
    directory,
    permission: [{ permission: "bash", pattern: "*", action: "ask" }],
    onPermission: async (request) => {
      asked.push(...request.patterns)
      return "once"
    },
    turns: [
      [say.toolCall("bash", { command: "echo hello | tr a-z A-Z", description: "Shout" })],
      [say.text("Done.")],
    ],
  })
  const session = await runtime.session.create()
  await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "Shout hello" }] })
  const part = (await runtime.session.messages(session.id))
    .flatMap((m) => m.parts)
    .find((p) => p.type === "tool")
  await runtime.close()
  // One pattern per command of the pipeline: the script was parsed by tree-sitter-bash.
  strictEqual(JSON.stringify(asked), JSON.stringify(["echo hello", "tr a-z A-Z"]))
  ok(part?.type === "tool" && part.state.status === "completed" && part.state.output === "HELLO\n")
  return `asked for ${JSON.stringify(asked)}, ran it: HELLO`
}

async function git(): Promise<string> {
  const directory = folder()
  writeFileSync(join(directory, "a.txt"), "one\n")
  const snapshot = new GitSnapshot({ directory, dataDir: folder() })
  const before = await snapshot.track()
  ok(before, `track() gave no hash: ${snapshot.unavailableReason}`)
  writeFileSync(join(directory, "a.txt"), "two\n")
  strictEqual(JSON.stringify((await snapshot.patch(before)).files), JSON.stringify(["a.txt"]))
  const [diff] = await snapshot.diff(before)
  strictEqual(diff?.after, "two\n")
  await snapshot.restore(before)
  strictEqual(readFileSync(join(directory, "a.txt"), "utf8"), "one\n")
  return "track, patch, diff and restore"
}

async function sandbox(): Promise<string> {
  // Not in the project folder: the user commands run as must reach it, and the check's temp folder is root's alone.
  const directory = mkdtempSync(join(tmpdir(), "agentloop-runtimes-sandbox-"))
  try {
    return await inSandbox(directory)
  } finally {
    rmSync(directory, { recursive: true, force: true })
  }
}

async function inSandbox(directory: string): Promise<string> {
  // As root, commands run as an ordinary user who owns the directory.
  const user = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined
  if (user) chownSync(directory, user.uid, user.gid)
  let operations: ReturnType<typeof sandboxOperations>
  try {
    operations = sandboxOperations({ directory, ...(user ? { user } : {}) })
  } catch (error) {
    if (SandboxUnavailableError.isInstance(error) && ["missing", "namespaces"].includes(error.data.reason))
      return `SKIPPED: ${error.data.reason}: ${error.message.split("\n")[0]}`
    throw error
  }
  let output = ""
  const result = await operations.exec("echo inside > f && cat f && id -u", {
    cwd: directory,
    signal: AbortSignal.timeout(20_000),
    timeoutMs: 10_000,
    onData: (chunk) => {
      output += chunk
    },
  })
  strictEqual(result.exitCode, 0)
  strictEqual(output, `inside\n${user?.uid ?? process.getuid?.()}\n`)
  return "a command ran in bubblewrap and wrote in the project"
}

async function server(): Promise<string> {
  const { runtime } = createTestRuntime({ turns: [] })
  await runtime.session.create({ title: "Listed" })
  const running = await serve(createServer(runtime), { port: 0 })
  const sessions = (await (await fetch(`${running.url}/session`)).json()) as { title: string }[]
  strictEqual(sessions[0]?.title, "Listed")
  // An open event stream must not keep close() waiting.
  const events = await fetch(`${running.url}/event`)
  const reader = events.body!.getReader()
  ok((await reader.read()).value)
  await running.close()
  await runtime.close()
  return `listed sessions at ${running.url}, closed with an event stream open`
}

/** `agentloop-sdk serve ./cli-agent.ts` in a process of this runtime, asked for its sessions, then stopped with SIGTERM. */
async function cli(): Promise<string> {
  const [command, ...args] = JSON.parse(process.env.RUNTIME_COMMAND ?? "[]") as string[]
  if (!command) throw new Error("RUNTIME_COMMAND is not set")
  const bin = join(process.cwd(), "node_modules", "agentloop-sdk", "dist", "cli", "bin.js")
  const agent = join(import.meta.dirname, "cli-agent.ts")
  const child = spawn(command, [...args, bin, "serve", agent, "--port", "0"], {
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 30_000,
  })
  let output = ""
  child.stderr.on("data", (chunk: Buffer) => (output += chunk))
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  )
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk
      const found = /Serving \S+ at (http:\S+)/.exec(output)
      if (found) resolve(found[1]!)
    })
    exited.then(({ code }) => reject(new Error(`the CLI exited with ${code} before serving:\n${output}`)))
  })
  strictEqual((await fetch(`${url}/session`)).status, 200)
  child.kill("SIGTERM")
  const { code, signal } = await exited
  ok(output.includes("Stopping"), output)
  // Deno's child_process reports a child it sent SIGTERM as ended by it, even one that handled it
  // and exited 0 (a shell that traps TERM too): from Deno, the CLI's own "Stopping" line is the proof.
  const deno = "deno" in process.versions && code === null && signal === "SIGTERM"
  ok(code === 0 || deno, `the CLI ended with ${code ?? signal}:\n${output}`)
  return `served a .ts module without tsx at ${url}, stopped on SIGTERM${deno ? " (exit reported as SIGTERM by Deno)" : ", exit 0"}`
}

async function postgres(): Promise<string> {
  const url = process.env.POSTGRES_URL
  if (!url) return "SKIPPED: POSTGRES_URL is not set"
  const schema = `runtime_${Date.now().toString(36)}`
  const storage = new PostgresStorage({ connectionString: url }, { schema })
  const model = { language: scriptedModel([[say.text("Stored.")]]), info: testModelInfo }
  const runtime = createRuntime({ model, storage, titles: false })
  const session = await runtime.session.create()
  const turn = await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "Hi" }] })
  strictEqual(turn.text, "Stored.")
  strictEqual((await runtime.session.messages(session.id)).length, 2)
  await runtime.close()
  return `a turn stored in schema ${schema}`
}

const parts: Record<string, () => Promise<string>> = { bash, git, sandbox, server, cli, postgres }
const chosen = process.argv.length > 2 ? process.argv.slice(2) : Object.keys(parts)
let failed = 0
for (const name of chosen) {
  const part = parts[name]
  if (!part) throw new Error(`unknown part ${name}: ${Object.keys(parts).join(", ")}`)
  try {
    const said = await part()
    console.log(said.startsWith("SKIPPED") ? `SKIPPED ${name}: ${said.slice(9)}` : `ok ${name}: ${said}`)
  } catch (error) {
    failed++
    console.log(`FAIL ${name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
  }
}
process.exitCode = failed === 0 ? 0 : 1
