// README's "Use it" followed as a newcomer follows it: its ```sh lines run in order in a new
// directory, with an empty npm cache, against the npm registry; its tsconfig.json and main.ts
// written from its ```json and first ```ts blocks; `npx tsc` run; then the example run against a
// local fake Anthropic server, "y" typed at the refund question, and its answer and cost checked.
// Each step is timed. Needs the network, so it is not part of `npm test`: .ci/run runs it.
// Usage: npm run check:readme   (KEEP=1 keeps the project for a look)
import { execFileSync, spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { fakeAnswer } from "../test/consumer/fake-anthropic.js"
import { approvedRun, readmeMainExample } from "../test/consumer/main-example.js"

const repo = resolve(import.meta.dirname, "..")
const readme = join(repo, "README.md")
const work = mkdtempSync(join(tmpdir(), "agentloop-readme-"))
const stepTimeoutMs = 10 * 60_000
// The line that clones the repository: CI already runs in a fresh clone with `npm ci` done, so
// only its `npm pack` is run here, on this checkout, into the `agentloop` directory the later
// lines expect.
const cloneLine = /^git clone .+? agentloop && \(cd agentloop && npm ci && npm pack\)/
const tarballPath = /\.\.\/agentloop\/agentloop-sdk-\S+\.tgz/

function useItBlocks(language: string): string[] {
  const text = readFileSync(readme, "utf8")
  const section = text.split(/^## Use it$/m)[1]?.split(/^## /m)[0] ?? ""
  const fence = new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\``, "gm")
  return [...section.matchAll(fence)].map((match) => match[1] ?? "")
}

/** Runs steps one after the other, printing each one's time as it ends. */
function stopwatch() {
  let total = 0
  return {
    async step<T>(name: string, action: () => T | Promise<T>): Promise<T> {
      const start = performance.now()
      const result = await action()
      const seconds = (performance.now() - start) / 1000
      total += seconds
      console.log(`${seconds.toFixed(1).padStart(6)} s  ${name}`)
      return result
    },
    total: () => total,
  }
}

// npm run's own npm_* variables (its prefix, its package) must not reach the newcomer's npm.
function newcomerEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)))
  return { ...env, npm_config_cache: join(work, "npm-cache") }
}

/**
 * Runs one README line with bash in `cwd`, as typed in a terminal; returns the directory it ends
 * in and npm's warnings, which are what a newcomer is told along the way.
 */
function shell(line: string, cwd: string): { cwd: string; warnings: string[] } {
  const pwdFile = join(work, ".pwd")
  const script = `set -o pipefail\n${line}\nstatus=$?\npwd > '${pwdFile}'\nexit $status\n`
  const run = spawnSync("bash", ["-c", script], {
    cwd,
    env: newcomerEnv(),
    encoding: "utf8",
    timeout: stepTimeoutMs,
  })
  const output = `${run.stdout ?? ""}${run.stderr ?? ""}`
  if (run.status !== 0)
    throw new Error(`${line}\n${output}${run.error?.message ?? `exit ${run.status ?? run.signal}`}`)
  const warnings = output.split("\n").filter((text) => /^npm warn/i.test(text))
  return { cwd: readFileSync(pwdFile, "utf8").trim(), warnings }
}

function packThisCheckout(): string {
  const destination = join(work, "agentloop")
  mkdirSync(destination)
  const output = execFileSync("npm", ["pack", "--json", "--pack-destination", destination], {
    cwd: repo,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: stepTimeoutMs,
  })
  const [info] = JSON.parse(output) as { filename: string }[]
  if (!info) throw new Error("npm pack printed no package")
  return info.filename
}

/** README's tsconfig.json, refused if it no longer asks what this check promises to compile under. */
function readmeTsconfig(): string {
  const [json] = useItBlocks("json")
  if (!json) throw new Error('README: no ```json block under "## Use it"')
  const options = (JSON.parse(json) as { compilerOptions?: Record<string, unknown> }).compilerOptions ?? {}
  const module = String(options.module).toLowerCase()
  if (options.strict !== true || module !== "nodenext" || options.skipLibCheck === true)
    throw new Error(`README's tsconfig is not strict, nodenext, skipLibCheck off:\n${json}`)
  return json
}

async function followReadme(): Promise<void> {
  const lines = useItBlocks("sh").flatMap((block) => block.split("\n").filter((line) => line.trim() !== ""))
  const [first, ...rest] = lines
  const clone = first?.match(cloneLine)?.[0]
  if (!clone)
    throw new Error(`README's first "Use it" line no longer clones and packs as expected:\n${first}`)
  if (!rest.some((line) => tarballPath.test(line)))
    throw new Error(`no README "Use it" line installs ../agentloop/agentloop-sdk-<version>.tgz`)
  const clock = stopwatch()
  const tarball = await clock.step(`npm pack of this checkout, standing for: ${clone}`, packThisCheckout)
  let cwd = work
  const told = new Set<string>()
  for (const line of rest) {
    const typed = line.replace(tarballPath, `../agentloop/${tarball}`)
    const ran = await clock.step(typed.replace(/\s+#.*$/, ""), () => shell(typed, cwd))
    cwd = ran.cwd
    // npm repeats its notices at each install: each is shown under the line that first prints it.
    for (const warning of ran.warnings.filter((text) => !told.has(text))) console.log(`          ${warning}`)
    for (const warning of ran.warnings) told.add(warning)
  }
  writeFileSync(join(cwd, "tsconfig.json"), readmeTsconfig())
  writeFileSync(join(cwd, "main.ts"), readmeMainExample(readme))
  await clock.step("npx tsc   (README's tsconfig.json: strict, nodenext, skipLibCheck off)", () =>
    shell("npx tsc", cwd),
  )
  // `npx tsx main.ts` starts `node --import tsx main.ts`; this runs that, with the project's own tsx.
  const tsx = createRequire(join(cwd, "package.json")).resolve("tsx")
  const fake = "ANTHROPIC_BASE_URL=<local fake server> ANTHROPIC_API_KEY=test"
  const run = await clock.step(`${fake} npx tsx main.ts, y typed at [y/N]`, () => approvedRun(cwd, tsx))
  if (!run.ok) throw new Error(`README's main example did not answer:\n${run.output}`)
  console.log(`${clock.total().toFixed(1).padStart(6)} s  in all, to "${fakeAnswer}" for $${run.cost}`)
}

console.log(`README "Use it", followed in ${work} (empty npm cache, the npm registry):`)
try {
  await followReadme()
} catch (error) {
  console.log(`\nFAIL ${error instanceof Error ? error.message : String(error)}`)
  process.exitCode = 1
}
if (process.env.KEEP) console.log(`project kept at ${work}`)
else rmSync(work, { recursive: true, force: true })
