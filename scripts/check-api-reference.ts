// The committed API reference (docs/api) is what `npm run docs:api` generates from the
// source now: regenerated into a temporary folder and compared file by file, so a changed
// declaration or doc comment without a regenerated reference fails.
// Usage: tsx scripts/check-api-reference.ts
import { execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

const repo = resolve(import.meta.dirname, "..")
const committed = join(repo, "docs/api")
const fresh = mkdtempSync(join(tmpdir(), "agentloop-api-"))
try {
  execFileSync(join(repo, "node_modules/.bin/typedoc"), ["--out", fresh], { cwd: repo, stdio: "inherit" })
  const files = (directory: string) =>
    existsSync(directory)
      ? readdirSync(directory, { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".md"))
      : []
  const wanted = files(fresh)
  const have = new Set(files(committed))
  const differences = [
    ...wanted.filter((file) => !have.has(file)).map((file) => `missing: docs/api/${file}`),
    ...[...have]
      .filter((file) => !wanted.includes(file))
      .map((file) => `not generated any more: docs/api/${file}`),
    ...wanted
      .filter((file) => have.has(file))
      .filter(
        (file) => readFileSync(join(fresh, file), "utf8") !== readFileSync(join(committed, file), "utf8"),
      )
      .map((file) => `out of date: docs/api/${file}`),
  ]
  for (const difference of differences) console.log(difference)
  console.log(
    differences.length === 0
      ? `api reference: docs/api matches the source (${wanted.length} pages)`
      : "api reference: docs/api is stale, run `npm run docs:api` and commit the result",
  )
  process.exitCode = differences.length === 0 ? 0 : 1
} finally {
  rmSync(fresh, { recursive: true, force: true })
}
