// The package as a user meets it: `npm pack`, the tarball installed into a fresh project, its
// public types compiled with skipLibCheck off under every resolution we promise, the docs'
// snippets compiled against it, its links followed, an ESM and a CommonJS program run, and
// README's main example run with tsx against a local fake Anthropic server (main-example.ts).
// Usage: npm run build && tsx test/consumer/check.ts   (KEEP=1 keeps the project for a look)
import { execFileSync } from "node:child_process"
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { brokenLinks } from "./links.js"
import { approvedRun, readmeMainExample, rejectedRun } from "./main-example.js"
import { linkDeclared, packRepository, unpack } from "./packed-package.js"
import { readPublicApi } from "./public-api.js"
import { extractSnippets } from "./snippets.js"
import { typeReferences } from "./type-references.js"

const repo = resolve(import.meta.dirname, "../..")
const here = import.meta.dirname
const work = mkdtempSync(join(tmpdir(), "agentloop-consumer-"))
const results: { name: string; ok: boolean; detail?: string }[] = []

function run(command: string, args: string[], cwd: string): { ok: boolean; output: string } {
  try {
    return { ok: true, output: execFileSync(command, args, { cwd, encoding: "utf8", stdio: "pipe" }) }
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string; message: string }
    return { ok: false, output: `${failure.stdout ?? ""}${failure.stderr ?? ""}` || failure.message }
  }
}

function record(name: string, outcome: { ok: boolean; output: string }): void {
  results.push({ name, ok: outcome.ok, detail: outcome.ok ? undefined : outcome.output })
  console.log(`${outcome.ok ? "ok  " : "FAIL"} ${name}`)
}

/** Installs the tarball and links its dependencies and peers from the dev install: no network, and only what it declares. */
function install(tarball: string, extras: string[]): string {
  const target = unpack(work, tarball)
  linkDeclared(work, { optional: true, extras })
  return target
}

function tsconfig(name: string, options: Record<string, unknown>, files: string[]): string {
  const file = `tsconfig.${name}.json`
  const compilerOptions = {
    strict: true,
    skipLibCheck: false,
    noEmit: true,
    types: ["node"],
    target: "ES2022",
    ...options,
  }
  writeFileSync(join(work, file), JSON.stringify({ compilerOptions, files }, null, 2))
  return file
}

const packed = packRepository(work)
const installed = install(packed.tarball, [
  "@types/node",
  "@types/json-schema",
  "@ai-sdk/anthropic",
  "@ai-sdk/openai",
  "@ai-sdk/mcp",
  "@opencode-ai/sdk",
  "@types/pg",
  "vitest",
])
writeFileSync(join(work, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }))

const api = readPublicApi(
  [
    "",
    "testing/",
    "storage/sqlite/",
    "storage/postgres/",
    "storage/durable-object/",
    "snapshot/git/",
    "tools/",
    "server/",
  ].map((path) => ({
    specifier: `agentloop-sdk${path ? `/${path.slice(0, -1)}` : ""}`,
    source: join(repo, "src", path, "index.ts"),
  })),
)
writeFileSync(join(work, "api.json"), JSON.stringify(api))
const references = typeReferences(api)
writeFileSync(join(work, "public-types.ts"), references)
writeFileSync(join(work, "public-types.cts"), references)

mkdirSync(join(work, "snippets"))
const docs = readdirSync(join(installed, "docs")).filter((name) => name.endsWith(".md"))
const snippets = [join(installed, "README.md"), ...docs.map((name) => join(installed, "docs", name))].flatMap(
  extractSnippets,
)
for (const snippet of snippets) writeFileSync(join(work, "snippets", `${snippet.name}.ts`), snippet.code)
const snippetFiles = snippets.map((snippet) => `snippets/${snippet.name}.ts`)

const tsc = join(repo, "node_modules", "typescript", "bin", "tsc")
const matrix = [
  tsconfig("nodenext", { module: "nodenext", moduleResolution: "nodenext" }, [
    "public-types.ts",
    "public-types.cts",
  ]),
  tsconfig("node16", { module: "node16", moduleResolution: "node16" }, [
    "public-types.ts",
    "public-types.cts",
  ]),
  tsconfig("bundler", { module: "preserve", moduleResolution: "bundler" }, ["public-types.ts"]),
  // The resolution older projects still use: no exports, the subpaths through typesVersions. The AI
  // SDK's own declarations do not resolve under it (eventsource-parser/stream), so such projects
  // need skipLibCheck, as they have it.
  tsconfig(
    "node10",
    { module: "commonjs", moduleResolution: "node10", esModuleInterop: true, skipLibCheck: true },
    ["public-types.cts"],
  ),
]
const typeCount = api.reduce((sum, entry) => sum + entry.types.length, 0)
for (const config of matrix) {
  const kinds = config.includes("bundler") ? "ESM" : config.includes("node10") ? "CJS" : "ESM and CJS"
  const libCheck = config.includes("node10") ? "skipLibCheck on" : "skipLibCheck off"
  record(
    `${typeCount} public types compile (${config}, ${kinds}, ${libCheck})`,
    run("node", [tsc, "-p", config], work),
  )
}
const docsConfig = tsconfig("docs", { module: "nodenext", moduleResolution: "nodenext" }, snippetFiles)
const docsResult = run("node", [tsc, "-p", docsConfig], work)
const legend = snippets.map(
  (snippet) => `snippets/${snippet.name}.ts is ${snippet.source.replace(installed, "")}`,
)
record(`${snippets.length} docs snippets compile as written (${docsConfig})`, {
  ok: docsResult.ok,
  output: [docsResult.output, ...legend].join("\n"),
})

copyFileSync(join(here, "handler-forms.ts"), join(work, "handler-forms.ts"))
const formsConfig = tsconfig("forms", { module: "nodenext", moduleResolution: "nodenext" }, [
  "handler-forms.ts",
])
record(
  `handlers and hooks compile in their sync and async forms, with literal answers (${formsConfig})`,
  run("node", [tsc, "-p", formsConfig], work),
)

const broken = brokenLinks(installed)
record(`links in the packed README and docs resolve`, { ok: broken.length === 0, output: broken.join("\n") })

for (const script of ["scenario.cjs", "smoke.mjs", "smoke.cjs"])
  copyFileSync(join(here, script), join(work, script))
for (const script of ["smoke.mjs", "smoke.cjs"]) {
  const directory = mkdtempSync(join(work, "run-"))
  record(`${script} runs against the installed package`, run("node", [script, "api.json", directory], work))
}

writeFileSync(join(work, "main.ts"), readmeMainExample(join(installed, "README.md")))
const tsxLoader = join(repo, "node_modules", "tsx", "dist", "esm", "index.mjs")
const approved = await approvedRun(work, tsxLoader)
record(
  `README's main example runs against a fake Anthropic server: refund approved, answered, $${approved.cost}`,
  approved,
)
record(
  `README's main example, refund refused: the turn ends "rejected" after one request`,
  await rejectedRun(work, tsxLoader),
)

console.log(
  `\npacked: ${packed.entryCount} files, ${(packed.size / 1024).toFixed(1)} kB tarball, ${(packed.unpackedSize / 1024).toFixed(1)} kB unpacked`,
)
for (const failure of results.filter((result) => !result.ok))
  console.log(`\n--- ${failure.name}\n${failure.detail}`)
const failed = results.filter((result) => !result.ok).length
console.log(`\nconsumer: ${results.length - failed} passed, ${failed} failed`)
if (process.env.KEEP) console.log(`consumer project kept at ${work}`)
else rmSync(work, { recursive: true, force: true })
process.exitCode = failed === 0 ? 0 : 1
