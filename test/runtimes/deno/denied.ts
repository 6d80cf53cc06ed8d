// Deno run without --allow-run and --allow-net: what needs a process or the network says so,
// by a named error or in words that name the flag, and nothing crashes.
// Run by test/runtimes/check.ts: deno run --allow-read --allow-write --allow-env --allow-sys deno/denied.ts
import { ok, strictEqual } from "node:assert/strict"
import { mkdtempSync } from "node:fs"
import { join } from "node:path"
import { createServer, serve } from "agentloop-sdk/server"
import { GitSnapshot } from "agentloop-sdk/snapshot/git"
import { createTestRuntime, say } from "agentloop-sdk/testing"
import { codingTools, SandboxUnavailableError, sandboxOperations } from "agentloop-sdk/tools"

const directory = mkdtempSync(join(process.cwd(), "denied-"))

function sandbox(): string {
  try {
    sandboxOperations({ directory, user: { uid: 65534, gid: 65534 } })
  } catch (error) {
    if (!SandboxUnavailableError.isInstance(error)) throw error
    strictEqual(error.data.reason, "failed")
    ok(error.data.fix.includes("--allow-run"), error.message)
    return `SandboxUnavailableError (${error.data.reason}): ${error.message.replaceAll("\n", " ")}`
  }
  throw new Error("the sandbox started without --allow-run")
}

async function git(): Promise<string> {
  const snapshot = new GitSnapshot({ directory, dataDir: mkdtempSync(join(process.cwd(), "denied-git-")) })
  strictEqual(await snapshot.track(), undefined)
  ok(snapshot.unavailableReason?.includes("--allow-run"), snapshot.unavailableReason)
  return `track() gives no hash, unavailableReason: ${snapshot.unavailableReason}`
}

async function bash(): Promise<string> {
  const { runtime } = createTestRuntime({
    tools: codingTools({ directory }),
    directory,
    permission: [{ permission: "bash", pattern: "*", action: "allow" }],
    turns: [[say.toolCall("bash", { command: "echo hello", description: "Say hello" })], [say.text("Done.")]],
  })
  const session = await runtime.session.create()
  const turn = await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "Hi" }] })
  strictEqual(turn.text, "Done.")
  const part = (await runtime.session.messages(session.id))
    .flatMap((m) => m.parts)
    .find((p) => p.type === "tool")
  await runtime.close()
  ok(part?.type === "tool" && part.state.status === "error" && part.state.error.includes("--allow-run"))
  return `the bash call failed as a tool error the model reads: ${part.state.error}`
}

async function server(): Promise<string> {
  const { runtime } = createTestRuntime({ turns: [] })
  const app = createServer(runtime)
  // What works without the network permission: the app itself, called as a fetch handler.
  strictEqual((await app.fetch(new Request("http://localhost/session"))).status, 200)
  const refused = await serve(app, { port: 0 }).then(
    (running) => running.close().then(() => undefined),
    (error: unknown) => error,
  )
  await runtime.close()
  ok(refused instanceof Error && refused.message.includes("--allow-net"), String(refused))
  return `app.fetch answers; serve() rejects: ${refused.name}: ${refused.message}`
}

const parts: Record<string, () => string | Promise<string>> = { sandbox, git, bash, server }
for (const name of process.argv.length > 2 ? process.argv.slice(2) : Object.keys(parts))
  console.log(`ok ${name}: ${await parts[name]!()}`)
