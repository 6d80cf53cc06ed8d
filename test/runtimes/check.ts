// The packed package under Bun and Deno, as a user gets it: `npm pack`, the tarball installed
// into a fresh project (its dependencies and the optional peers the scenarios use linked from the
// dev install: no network; no better-sqlite3, no tsx, no @opentelemetry/api), then under each
// runtime: README's demo (examples/quickstart.ts), the testing kit (bun:test, or a small
// describe/it runner under Deno), a tool-using session on a SQLite file written, closed and read
// back in a new process, writes that meet another process's write lock, and the parts beyond the
// core (tree-sitter bash, GitSnapshot, the sandbox, serve(), the CLI, PostgresStorage). See
// docs/runtimes.md.
//
// Usage: tsx test/runtimes/check.ts [--tarball <file>] [bun] [deno]
//   BUN_BIN, DENO_BIN   the runtimes' paths; one that is not set is SKIPPED, loudly (a failure with CI=true)
//   POSTGRES_URL        a server for PostgresStorage; else a throwaway cluster when initdb is installed
//   --tarball           a tarball already packed (else `npm pack` here, which builds it: prepack)
//   KEEP=1              keeps the project for a look
import { spawnSync } from "node:child_process"
import { copyFileSync, cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { linkDeclared, linkPackage, packRepository, unpack } from "../consumer/packed-package.js"
import { type Cluster, findPostgres, startCluster } from "../setup/pg-cluster.js"
import { type Runtime, runtimes } from "./shared-runtimes.js"

const repo = resolve(import.meta.dirname, "../..")
const here = import.meta.dirname
const ci = process.env.CI === "true" || process.env.CI === "1"
const args = process.argv.slice(2)
const tarballArg = args.includes("--tarball") ? args[args.indexOf("--tarball") + 1] : undefined
const only = args.filter((arg, index) => !arg.startsWith("--") && args[index - 1] !== "--tarball")

/** The optional peers the scenarios use, and the provider packages examples/choose-model.ts imports. */
const LINKED = [
  "tinyglobby",
  "web-tree-sitter",
  "tree-sitter-bash",
  "hono",
  "hono-openapi",
  "@hono/node-server",
  "pg",
  "@ai-sdk/anthropic",
  "@ai-sdk/openai",
  "@ai-sdk/openai-compatible",
]
/** Optional peers left out on purpose: nothing the scenarios run may need them (better-sqlite3 is linked for the last ones). */
const ABSENT = ["better-sqlite3", "tsx", "@opentelemetry/api"]

type Outcome = { runtime: string; name: string; ok: boolean; seconds: number; detail: string }
const outcomes: Outcome[] = []
const skipped: string[] = []

function pack(work: string): string {
  return tarballArg ? resolve(tarballArg) : packRepository(work).tarball
}

/** The project: the tarball's contents in node_modules, its dependencies linked, the scenario files beside. */
function makeProject(work: string, tarball: string): string {
  const project = join(work, "project")
  unpack(project, tarball)
  linkDeclared(project, { optional: false, extras: LINKED })
  for (const name of ABSENT)
    if (existsSync(join(project, "node_modules", name)))
      throw new Error(`runtimes: ${name} must not be installed`)
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "runtimes", private: true, type: "module" }),
  )
  for (const folder of ["shared", "bun", "deno"])
    cpSync(join(here, folder), join(project, folder), { recursive: true })
  for (const file of ["quickstart.ts", "choose-model.ts"])
    copyFileSync(join(repo, "examples", file), join(project, file))
  return project
}

/** Runs one scenario, bounded; records it. */
function scenario(
  runtime: Runtime,
  name: string,
  command: string[],
  options: {
    cwd: string
    env: NodeJS.ProcessEnv
    timeoutMs: number
    expect?: (output: string) => string | undefined
  },
): string {
  const started = performance.now()
  const [file, ...rest] = command
  const result = spawnSync(file!, rest, {
    cwd: options.cwd,
    env: options.env,
    encoding: "utf8",
    timeout: options.timeoutMs,
    killSignal: "SIGKILL",
    maxBuffer: 64 * 1024 * 1024,
  })
  const output = `${result.stdout ?? ""}${result.stderr ?? ""}`
  const seconds = (performance.now() - started) / 1000
  const problem =
    result.error?.message ??
    (result.status !== 0
      ? `exited with ${result.status ?? result.signal}${result.signal === "SIGKILL" ? ` (timed out after ${options.timeoutMs / 1000} s)` : ""}`
      : options.expect?.(output))
  const skips = output.split("\n").filter((line) => line.startsWith("SKIPPED"))
  skipped.push(...skips.map((line) => `${runtime.name} ${name}: ${line}`))
  const ok = problem === undefined && !(ci && skips.length > 0)
  outcomes.push({
    runtime: runtime.name,
    name,
    ok,
    seconds,
    detail: ok ? "" : `${problem ?? "skipped under CI"}\n${output}`,
  })
  console.log(`${ok ? "ok  " : "FAIL"} ${runtime.name} ${runtime.version}: ${name} (${seconds.toFixed(1)} s)`)
  for (const line of output.split("\n").filter((line) => /^(ok|SKIPPED) \w+:/.test(line)))
    console.log(`       ${line}`)
  return output
}

function environment(runtime: Runtime, postgresUrl: string | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" }
  // The demo plays its scripted model only when no real one is configured.
  for (const name of ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "AGENTLOOP_BASE_URL", "AGENTLOOP_MODEL"])
    delete env[name]
  env.RUNTIME_COMMAND = JSON.stringify(runtime.run([]))
  if (postgresUrl) env.POSTGRES_URL = postgresUrl
  return env
}

/** What one runtime runs with no native module installed; returns the session file it wrote and the session's ID. */
function runAll(runtime: Runtime, project: string, postgresUrl: string | undefined): [string, string] {
  const at = { cwd: project, env: environment(runtime, postgresUrl), timeoutMs: 60_000 }
  const session = (args: string[]) => runtime.run(["shared/sqlite-session.ts", ...args])
  scenario(runtime, "README's demo (examples/quickstart.ts)", runtime.run(["quickstart.ts"]), {
    ...at,
    expect: (output) =>
      output.includes("Final answer (finish: stop)") &&
      output.includes("- assistant: step-start, tool:question")
        ? undefined
        : "the demo did not answer",
  })
  scenario(runtime, "testing kit: a scripted agent and storageConformance on SqliteStorage", runtime.kit, {
    ...at,
    timeoutMs: 120_000,
    // bun test says " 25 pass", " 0 fail"; mini-test.ts "25 passed, 0 failed".
    expect: (output) =>
      /\b\d{2,} pass/.test(output) && /\b0 fail/.test(output)
        ? undefined
        : "the kit's cases did not all pass",
  })
  const file = join(project, `${runtime.name}-session.db`)
  const written = scenario(
    runtime,
    "a tool-using session written to a SQLite file",
    session(["write", file]),
    at,
  )
  const sessionID = /ses_\w+/.exec(written)?.[0] ?? "no-session-written"
  scenario(runtime, "read back and continued in a new process", session(["read", file, sessionID]), at)
  const busy = session(["busy", join(project, `${runtime.name}-busy.db`)])
  scenario(runtime, "writes that meet another process's write lock are retried", busy, at)
  const parts = runtime.run(["shared/parts.ts"])
  scenario(runtime, "parts: tree-sitter bash, GitSnapshot, sandbox, serve, CLI, PostgresStorage", parts, {
    ...at,
    timeoutMs: 120_000,
  })
  if (runtime.denied)
    scenario(runtime, "without --allow-run and --allow-net: named errors, no crash", runtime.denied, {
      ...at,
      timeoutMs: 30_000,
    })
  return [file, sessionID]
}

/** With better-sqlite3 installed: the session read and continued through it, then through node:sqlite again. */
function crossDrivers(runtime: Runtime, project: string, [file, sessionID]: [string, string]): void {
  const at = { cwd: project, env: environment(runtime, undefined), timeoutMs: 60_000 }
  const read = ["shared/sqlite-session.ts", "read", file, sessionID]
  const better = runtime.run([...read, "better-sqlite3"], "native")
  scenario(runtime, "the session read and continued through better-sqlite3", better, at)
  scenario(runtime, "and read and continued through node:sqlite after it", runtime.run(read), at)
}

async function postgres(): Promise<{ url: string | undefined; cluster?: Cluster }> {
  if (process.env.POSTGRES_URL) return { url: process.env.POSTGRES_URL }
  const bin = findPostgres()
  if (!bin) return { url: undefined }
  const cluster = await startCluster(bin)
  return { url: cluster.url, cluster }
}

const started = performance.now()
const work = mkdtempSync(join(tmpdir(), "agentloop-runtimes-"))
const { available, missing } = runtimes(process.env, only)
for (const { name, variable } of missing) {
  const line = `SKIPPED: ${name} (${variable} is not set): its demo, testing kit, SQLite session and parts did not run`
  console.log(`\n${"!".repeat(line.length)}\n${line}\n${"!".repeat(line.length)}\n`)
  skipped.push(line)
}
let cluster: Cluster | undefined
try {
  const project = makeProject(work, pack(work))
  const pg = available.length > 0 ? await postgres() : { url: undefined }
  cluster = pg.cluster
  const sessions = available.map((runtime) => runAll(runtime, project, pg.url))
  // Only now: nothing above may need a native module.
  linkPackage(project, "better-sqlite3")
  for (const [index, runtime] of available.entries()) crossDrivers(runtime, project, sessions[index]!)
} finally {
  cluster?.stop()
  if (process.env.KEEP) console.log(`project kept at ${work}`)
  else rmSync(work, { recursive: true, force: true })
}

for (const failure of outcomes.filter((outcome) => !outcome.ok))
  console.log(`\n--- ${failure.runtime}: ${failure.name}\n${failure.detail}`)
const failed = outcomes.filter((outcome) => !outcome.ok).length
if (skipped.length > 0)
  console.log(
    `\nSKIPPED (${ci ? "a failure under CI" : "set the variables to run them"}):\n  ${skipped.join("\n  ")}`,
  )
console.log(
  `\nruntimes: ${outcomes.length - failed} passed, ${failed} failed, ${skipped.length} skipped, in ${((performance.now() - started) / 1000).toFixed(0)} s`,
)
process.exitCode = failed > 0 || (ci && skipped.length > 0) ? 1 : 0
