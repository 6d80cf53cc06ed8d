import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { parseArgs } from "node:util"
import { linkDeclared, optionalPeers, unpack } from "../../consumer/packed-package.js"
import { bundleForWorkerd } from "./bundle.js"
import { chatChunks } from "./chat-stream.js"
import { workerChecks } from "./checks.js"
import { checkConversations } from "./conversations.js"
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
  if (values.tarball) unpack(work, values.tarball)
  else {
    const target = join(work, "node_modules", "agentloop-sdk")
    mkdirSync(target, { recursive: true })
    const dist = resolve(values.dist ?? join(repo, "dist"))
    if (!existsSync(join(dist, "server", "index.js")))
      throw new Error(`no build at ${dist}: run npm run build`)
    cpSync(dist, join(target, "dist"), { recursive: true })
    // The manifest beside that dist (a package directory), else the repository's.
    const manifest = existsSync(join(dist, "..", "package.json")) ? join(dist, "..") : repo
    copyFileSync(join(manifest, "package.json"), join(target, "package.json"))
  }
  return { optionalPeers: optionalPeers(linkDeclared(work, { optional: false, extras: SERVER_PEERS })) }
}

function check(name: string, failure: string | undefined): void {
  console.log(`${failure === undefined ? "ok  " : "FAIL"} ${name}`)
  if (failure !== undefined) failures.push(`${name}\n${failure}`)
}

async function serveAndChat(compatibility: Compatibility): Promise<void> {
  const declared = `compatibility_date ${compatibility.date}, flags [${compatibility.flags.join(", ")}]`
  const workerd = await startWorkerd({ binary, directory: work, module: "worker.js", compatibility })
  const before = failures.length
  try {
    check(`workerd serves the Worker (${declared})`, undefined)
    const chunks = await chatChunks(`${workerd.url}/chat`, "Weather in Oslo?")
    for (const [name, failure] of workerChecks(chunks)) check(`${declared}: ${name}`, failure)
  } finally {
    const output = await workerd.stop()
    if (failures.length > before) console.log(`workerd's output:\n${output}`)
  }
}

/** Bundles one of this folder's Workers into the project, as wrangler would; true when it bundled. */
async function bundle(name: string, refuse: string[]): Promise<boolean> {
  copyFileSync(join(here, `${name}.ts`), join(work, `${name}.ts`))
  const result = await bundleForWorkerd({ entry: join(work, `${name}.ts`), refuse })
  check(
    `${name}.ts bundles without ${refuse.join(", ")}`,
    result.errors.length ? result.errors.map((error) => error.text).join("\n") : undefined,
  )
  if (result.errors.length === 0) writeFileSync(join(work, `${name}.js`), result.code)
  return result.errors.length === 0
}

const started = Date.now()
try {
  const { optionalPeers } = install()
  writeFileSync(join(work, "package.json"), JSON.stringify({ name: "worker", private: true, type: "module" }))
  const refuse = optionalPeers.filter((name) => !SERVER_PEERS.includes(name))
  const newest: Compatibility = { date: workerdDate(binary), flags: [] }
  if (await bundle("worker", refuse))
    for (const compatibility of [OLDEST, newest]) await serveAndChat(compatibility)
  if (await bundle("conversation-worker", refuse))
    await checkConversations({
      binary,
      directory: work,
      module: "conversation-worker.js",
      compatibility: newest,
      check,
    })
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
