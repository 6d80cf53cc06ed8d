/**
 * agentloop as the benches run it: the built package (`npm run build` first), as a user's
 * process loads it, by default. Not the sources through tsx, whose transform wraps every
 * function the code creates in a `__name` call (3% of a step's CPU in bench/sessions.ts).
 * `AGENTLOOP_BENCH_SOURCE=src` loads the sources instead, for profiles that name source files
 * (bench/loop-profile.ts sets it). The types are the sources' either way.
 */
import fs from "node:fs"
import { fileURLToPath } from "node:url"

type Root = typeof import("../src/index.js")
type Sqlite = typeof import("../src/storage/sqlite/index.js")
type Postgres = typeof import("../src/storage/postgres/index.js")
type Testing = typeof import("../src/testing/index.js")

const fromSource = process.env.AGENTLOOP_BENCH_SOURCE === "src"
const built = new URL("../dist/", import.meta.url)
if (!fromSource && !fs.existsSync(fileURLToPath(new URL("index.js", built))))
  throw new Error(
    "The benches run the built package: run `npm run build` first (or set AGENTLOOP_BENCH_SOURCE=src)",
  )

const load = <T>(source: string, dist: string): Promise<T> =>
  import(fromSource ? new URL(source, import.meta.url).href : new URL(dist, built).href) as Promise<T>

export const agentloop = await load<Root>("../src/index.ts", "index.js")
export const sqlite = await load<Sqlite>("../src/storage/sqlite/index.ts", "storage/sqlite/index.js")
export const testing = await load<Testing>("../src/testing/index.ts", "testing/index.js")
/** Loaded when asked for: it needs `pg`, which only the PostgreSQL benches use. */
export const loadPostgres = () =>
  load<Postgres>("../src/storage/postgres/index.ts", "storage/postgres/index.js")
/** Where the code came from, for the benches' headers. */
export const packageSource = fromSource ? "src/ through tsx" : "dist/ (npm run build)"
