/**
 * What importing the built package costs once its dependencies are loaded (issue 32, startup).
 * Each child process (plain Node, no TypeScript loader) imports `ai`, `zod`,
 * `@ai-sdk/openai-compatible` and agentloop's own dependencies, then imports `<dist>/index.js`.
 * Timing runs, without a profiler, alternate between the builds given (say, this checkout's and
 * an older one built elsewhere) and report the import's wall and CPU time (all threads); then
 * profiled runs (node:inspector, 25 µs sampling, about twice as slow) say where each build's
 * import went, by script and by function.
 *
 *   npm run build && npx tsx bench/import-profile.ts [dist directory...]   # BENCH_RUNS=9 by default
 */
import { execFileSync } from "node:child_process"
import path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { add, type Profile } from "./cpu-profile.js"
import { median, printTable } from "./report.js"

const ROOT = fileURLToPath(new URL("..", import.meta.url))
const BUILDS = (process.argv.length > 2 ? process.argv.slice(2) : [path.join(ROOT, "dist")]).map((dist) =>
  path.resolve(dist),
)
const RUNS = Number(process.env.BENCH_RUNS ?? 9)

type Result = { ms: number; cpu: number; profile: Profile | null }

// The child: ESM evaluated by `node --input-type=module`, resolving packages from the checkout.
const child = (dist: string, profiled: boolean) => `
import { Session } from "node:inspector/promises"
await import("ai"); await import("zod"); await import("decimal.js"); await import("ulid")
await import("eventemitter3"); await import("@ai-sdk/openai-compatible")
const session = new Session()
${profiled ? 'session.connect(); await session.post("Profiler.enable"); await session.post("Profiler.setSamplingInterval", { interval: 25 }); await session.post("Profiler.start")' : ""}
const cpuStart = process.cpuUsage()
const start = performance.now()
await import(${JSON.stringify(pathToFileURL(path.join(dist, "index.js")).href)})
const ms = performance.now() - start
const { user, system } = process.cpuUsage(cpuStart)
const profile = ${profiled ? '(await session.post("Profiler.stop")).profile' : "null"}
process.stdout.write(JSON.stringify({ ms, cpu: (user + system) / 1000, profile }))
`

const run = (dist: string, profiled: boolean): Result =>
  JSON.parse(
    execFileSync(process.execPath, ["--input-type=module", "-e", child(dist, profiled)], {
      cwd: ROOT,
      encoding: "utf8",
      maxBuffer: 1 << 28,
    }),
  )

/** A frame's script: the package, the file under dist, or V8's own (GC, compiling, program). */
const scriptOf = (dist: string, url: string, functionName: string) =>
  url === ""
    ? functionName || "(native)"
    : url.includes("/node_modules/")
      ? url.replace(/^.*\/node_modules\/((@[^/]+\/)?[^/]+)\/.*$/, "$1")
      : url.startsWith("node:")
        ? "node"
        : path.relative(dist, fileURLToPath(url))

/** Self time by script and by function, in ms summed over the profiles. */
function tally(dist: string, profiles: Profile[]) {
  const scripts = new Map<string, number>()
  const functions = new Map<string, number>()
  for (const profile of profiles) {
    const byID = new Map(profile.nodes.map((node) => [node.id, node]))
    const parentOf = new Map(
      profile.nodes.flatMap((node) => (node.children ?? []).map((id) => [id, node.id])),
    )
    // Profiler.stop's own work (building the profile) is sampled too: not the import's.
    const stopping = (id: number | undefined): boolean =>
      id !== undefined && (byID.get(id)!.callFrame.functionName === "post" || stopping(parentOf.get(id)))
    profile.samples.forEach((id, index) => {
      if (stopping(id)) return
      const frame = byID.get(id)!.callFrame
      const ms = (profile.timeDeltas[index] ?? 0) / 1000
      const script = scriptOf(dist, frame.url, frame.functionName)
      add(scripts, "(all)", ms)
      add(scripts, script, ms)
      add(functions, `${frame.functionName || "(anonymous)"} ${script}:${frame.lineNumber + 1}`, ms)
    })
  }
  return { scripts, functions }
}

const top = (map: Map<string, number>, count: number) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, ms]) => [name, (ms / RUNS).toFixed(2)])

const timings = new Map<string, Result[]>(BUILDS.map((dist) => [dist, []]))
for (let round = 0; round < RUNS; round++)
  for (const dist of round % 2 ? [...BUILDS].reverse() : BUILDS) timings.get(dist)!.push(run(dist, false))
console.log(`\nimport("<dist>/index.js") after its dependencies: medians of ${RUNS} runs, alternated`)
printTable(
  ["dist", "wall ms", "CPU ms"],
  BUILDS.map((dist) => {
    const results = timings.get(dist)!
    const of = (key: "ms" | "cpu") => median(results.map((result) => result[key])).toFixed(1)
    return [path.relative(ROOT, dist) || ".", of("ms"), of("cpu")]
  }),
)
for (const dist of BUILDS) {
  const { scripts, functions } = tally(
    dist,
    Array.from({ length: RUNS }, () => run(dist, true).profile!),
  )
  console.log(`\n${path.relative(ROOT, dist)}, profiled: self time by script (ms per import)`)
  printTable(["script", "ms"], top(scripts, 12))
  console.log(`\n${path.relative(ROOT, dist)}, profiled: self time by function (ms per import)`)
  printTable(["function", "ms"], top(functions, 20))
}
