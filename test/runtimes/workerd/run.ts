// The core in Cloudflare's workerd, as a Worker's author meets it: the built package installed into
// a fresh project with its dependencies and the server's peers (hono, hono-openapi) but no other
// optional peer, a Worker bundled as wrangler bundles it (worker.ts), served by workerd with
// nodejs_compat, and a useChat request streamed back through chatHandler.
// Usage: WORKERD_BIN=<path to workerd> tsx test/runtimes/workerd/run.ts [--dist <dir> | --tarball <file>]
// (default: the repository's dist/, built by npm run build). Without WORKERD_BIN it says it
// skipped, and fails under CI=true. KEEP=1 keeps the project for a look.
import { execFileSync } from "node:child_process"
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { parseArgs } from "node:util"
import { bundleForWorkerd } from "./bundle.js"
import { type UIChunk, workerChecks } from "./checks.js"
import { type Compatibility, startWorkerd, workerdDate } from "./workerd.js"

const repo = resolve(import.meta.dirname, "../../..")
const here = import.meta.dirname
/** The server entry's own peers: a Worker that uses chatHandler installs them. */
const SERVER_PEERS = ["hono", "hono-openapi"]
/**
 * The oldest compatibility date the core runs at (node:os comes with 2025-09-15), with the flag
 * the issue names; then the newest this workerd accepts, where nodejs_compat is the default.
 */
const OLDEST: Compatibility = { date: "2025-09-15", flags: ["nodejs_compat"] }

function workerdBinary(): string {
  const binary = process.env.WORKERD_BIN
  if (binary) return binary
  const message = "workerd test SKIPPED: set WORKERD_BIN to a workerd binary (npm install workerd)"
  console.error(`\n!!! ${message} !!!\n`)
  process.exit(process.env.CI === "true" ? 1 : 0)
}
const binary = workerdBinary()

const { values } = parseArgs({ options: { dist: { type: "string" }, tarball: { type: "string" } } })
const work = mkdtempSync(join(tmpdir(), "agentloop-workerd-"))
const failures: string[] = []

/** The package as npm would install it, its dependencies and the server's peers linked from the dev install. */
function install(): { optionalPeers: string[] } {
  const target = join(work, "node_modules", "agentloop-sdk")
  mkdirSync(target, { recursive: true })
  if (values.tarball) execFileSync("tar", ["-xzf", values.tarball, "-C", target, "--strip-components=1"])
  else {
    const dist = resolve(values.dist ?? join(repo, "dist"))
    if (!existsSync(join(dist, "server", "index.js")))
      throw new Error(`no build at ${dist}: run npm run build`)
    cpSync(dist, join(target, "dist"), { recursive: true })
    copyFileSync(join(repo, "package.json"), join(target, "package.json"))
  }
  const manifest = JSON.parse(readFileSync(join(target, "package.json"), "utf8"))
  const meta: Record<string, { optional?: boolean }> = manifest.peerDependenciesMeta ?? {}
  const optionalPeers = Object.keys(meta).filter((name) => meta[name]?.optional)
  const required = Object.keys(manifest.peerDependencies ?? {}).filter(
    (name) => !optionalPeers.includes(name),
  )
  for (const name of [...Object.keys(manifest.dependencies ?? {}), ...required, ...SERVER_PEERS]) {
    const source = join(repo, "node_modules", name)
    if (!existsSync(source)) throw new Error(`workerd: ${name} is not in the dev install`)
    mkdirSync(dirname(join(work, "node_modules", name)), { recursive: true })
    execFileSync("ln", ["-s", source, join(work, "node_modules", name)])
  }
  return { optionalPeers }
}

function check(name: string, failure: string | undefined): void {
  console.log(`${failure === undefined ? "ok  " : "FAIL"} ${name}`)
  if (failure !== undefined) failures.push(`${name}\n${failure}`)
}

async function chatChunks(url: string): Promise<UIChunk[]> {
  const response = await fetch(`${url}/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      id: "chat-1",
      messages: [{ id: "m1", role: "user", parts: [{ type: "text", text: "Weather in Oslo?" }] }],
    }),
    signal: AbortSignal.timeout(30_000),
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`POST /chat answered ${response.status}: ${text}`)
  return text
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => line.slice("data: ".length))
    .map((data) => (data === "[DONE]" ? { type: "[DONE]" } : (JSON.parse(data) as UIChunk)))
}

async function serveAndChat(compatibility: Compatibility): Promise<void> {
  const declared = `compatibility_date ${compatibility.date}, flags [${compatibility.flags.join(", ")}]`
  const workerd = await startWorkerd({ binary, directory: work, module: "worker.js", compatibility })
  const before = failures.length
  try {
    check(`workerd serves the Worker (${declared})`, undefined)
    const chunks = await chatChunks(workerd.url)
    for (const [name, failure] of workerChecks(chunks)) check(`${declared}: ${name}`, failure)
  } finally {
    const output = await workerd.stop()
    if (failures.length > before) console.log(`workerd's output:\n${output}`)
  }
}

const started = Date.now()
try {
  const { optionalPeers } = install()
  writeFileSync(join(work, "package.json"), JSON.stringify({ name: "worker", private: true, type: "module" }))
  copyFileSync(join(here, "worker.ts"), join(work, "worker.ts"))
  const bundle = await bundleForWorkerd({
    entry: join(work, "worker.ts"),
    refuse: optionalPeers.filter((name) => !SERVER_PEERS.includes(name)),
  })
  check(
    `the Worker bundles without ${optionalPeers.filter((name) => !SERVER_PEERS.includes(name)).join(", ")}`,
    bundle.errors.length ? bundle.errors.map((error) => error.text).join("\n") : undefined,
  )
  if (bundle.errors.length === 0) {
    writeFileSync(join(work, "worker.js"), bundle.code)
    for (const compatibility of [OLDEST, { date: workerdDate(binary), flags: [] }])
      await serveAndChat(compatibility)
  }
} catch (error) {
  check("the workerd run", error instanceof Error ? (error.stack ?? error.message) : String(error))
} finally {
  if (process.env.KEEP) console.log(`project kept at ${work}`)
  else rmSync(work, { recursive: true, force: true })
}

console.log(
  `\nworkerd: ${failures.length ? `${failures.length} FAILED` : "all passed"} in ${Date.now() - started} ms`,
)
for (const failure of failures) console.log(`\n--- ${failure}`)
process.exit(failures.length ? 1 : 0)
