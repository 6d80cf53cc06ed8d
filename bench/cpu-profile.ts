/**
 * Reading V8 CPU profiles of loop runs (bench/loop-profile.ts): where each sample's time went,
 * summed over the profiles and printed per step.
 */
import { printTable } from "./report.js"

/** Adds `by` to the entry `key` of a tally. */
export const add = (map: Map<string, number>, key: string, by = 1) => map.set(key, (map.get(key) ?? 0) + by)

export type Frame = { functionName: string; url: string; lineNumber: number }
type ProfileNode = { id: number; callFrame: Frame; children?: number[] }
export type Profile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

/** The checkout's root, as profile URLs spell it. */
const ROOT = new URL("..", import.meta.url).href

/** A frame's script, shortened to the package or the source file. */
const where = (frame: Frame) =>
  frame.url.replace(/^.*\/node_modules\/((@[^/]+\/)?[^/]+)\/.*$/, "$1").replace(ROOT, "")

/**
 * Where a sample's own (self) time is spent: the package, the agentloop source folder or the
 * part of Node of its top frame. V8 built-ins such as JSON.stringify appear as their caller's
 * self time; structuredClone, writev and the microtask runner appear on their own.
 */
function bucketOf(frame: Frame): string {
  const { functionName: name, url } = frame
  if (url === "")
    return /^\((garbage collector|idle|program)\)$/.test(name) ? name : `V8/native: ${name || "(anonymous)"}`
  if (url.includes("/src/"))
    return url.replace(/^.*\/src\/([^/]+)\/.*$/, "src/$1/").replace(/^.*\/src\/[^/]+$/, "src/")
  if (url.includes("/node_modules/")) return where(frame)
  if (url.includes("/bench/")) return "bench"
  if (url.startsWith("node:internal/webstreams")) return "node: web streams"
  if (/undici|node:internal\/(http|net|stream_base|streams)|node:(http|net)/.test(url))
    return "node: http, sockets, streams"
  return "node: other"
}

/**
 * What a step does, each as a test on one frame: a sample counts toward an activity when any
 * frame of its stack passes (so activities overlap, and an async function's frame is on the
 * stack only while its synchronous part runs).
 */
const ACTIVITIES: { name: string; match: (frame: Frame) => boolean }[] = [
  {
    name: "request building, agentloop (history to spec prompt, settings, rules, tools)",
    match: (f) =>
      /src\/(loop\/(prompt-cache|call-settings|step)|message\/to-model-messages|provider-call\/(prompt|tools)|permission\/)/.test(
        f.url,
      ),
  },
  {
    name: "request building, provider (getArgs, message conversion, body JSON, fetch setup)",
    match: (f) =>
      (f.url.includes("openai-compatible") && /getArgs|convert|prepareTools/.test(f.functionName)) ||
      f.functionName === "postJsonToApi",
  },
  {
    name: "schema conversion (zod to JSON Schema)",
    match: (f) =>
      /to-json-schema|json-schema|toJSONSchema|asSchema|zodSchema|schemaOf/.test(f.url + f.functionName),
  },
  {
    name: "SSE reading and chunk parsing (provider transform, eventsource, provider-utils)",
    match: (f) =>
      /eventsource-parser/.test(f.url) ||
      (f.url.includes("openai-compatible") && f.functionName === "transform") ||
      /parseJsonEventStream|safeParseJSON|safeValidateTypes/.test(f.functionName),
  },
  { name: "zod (any validation)", match: (f) => f.url.includes("/zod/") },
  {
    name: "storage writes (validateWrites, adapter)",
    match: (f) => f.url.includes("/src/storage/") && /write|apply|validWrite|validRow/i.test(f.functionName),
  },
  {
    name: "storage reads",
    match: (f) => f.url.includes("/src/storage/") && /^(get|list)/.test(f.functionName),
  },
  {
    name: "session writers (updatePart, updateMessage, saveMessage)",
    match: (f) => f.url.includes("/src/session/writers"),
  },
  {
    name: "ID generation (src/id, ulid)",
    match: (f) => f.url.includes("/src/id/") || f.url.includes("/ulid/"),
  },
  {
    name: "event fan-out (src/bus, eventemitter3)",
    match: (f) => f.url.includes("/src/bus/") || f.url.includes("eventemitter3"),
  },
  { name: "structuredClone", match: (f) => f.functionName === "structuredClone" && f.url === "" },
  { name: "processor (src/processor)", match: (f) => f.url.includes("/src/processor/") },
  { name: "node web streams", match: (f) => f.url.startsWith("node:internal/webstreams") },
  { name: "undici fetch", match: (f) => f.url.includes("undici") },
  { name: "garbage collector", match: (f) => f.functionName === "(garbage collector)" },
]

/**
 * Functions of agentloop whose cost (with all they call while on the stack) the candidates for
 * optimisation rest on: the write path, the reads the loop makes, and what a step recomputes.
 */
const FUNCTIONS = [
  "validateWrites",
  "assertJsonEncodable",
  "saveMessage",
  "updatePart",
  "recordUsage",
  "stored",
  "newMessageID",
  "sessionFloor",
  "getModel",
  "callSettings",
  "enabled",
  "sessionRules",
  "promptBody",
  "specTools",
  "filterCompacted",
  "pendingSubtasks",
  "turnToolParts",
  "finishedSinceCompaction",
  "structuredClone",
  "publish",
  "ascending",
]

/** ms by self bucket, by activity, by function (self), and zod's time by the caller that asked. */
export function breakdown(profiles: Profile[]) {
  const buckets = new Map<string, number>()
  const activities = new Map<string, number>()
  const functions = new Map<string, number>()
  const zodCallers = new Map<string, number>()
  const owners = new Map<string, number>()
  const named = new Map<string, number>()
  let total = 0
  let idle = 0
  for (const profile of profiles) {
    const found = samples(profile, { buckets, activities, functions, zodCallers, owners, named })
    total += found.total
    idle += found.idle
  }
  return { busy: total - idle, buckets, activities, functions, zodCallers, owners, named }
}

type Sums = Record<
  "buckets" | "activities" | "functions" | "zodCallers" | "owners" | "named",
  Map<string, number>
>

/** Adds one profile's samples to `sums`; returns its total and idle ms. */
function samples(profile: Profile, { buckets, activities, functions, zodCallers, owners, named }: Sums) {
  const byID = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  let total = 0
  let idle = 0
  for (const [index, id] of profile.samples.entries()) {
    const ms = (profile.timeDeltas[index + 1] ?? 0) / 1000
    const stack: Frame[] = []
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at))
      stack.push(byID.get(at)!.callFrame)
    // Starting and stopping the profiler around each run is not the run's work.
    if (stack.some((frame) => frame.url === "node:inspector")) continue
    total += ms
    const top = stack[0]!
    if (top.functionName === "(idle)") idle += ms
    add(buckets, bucketOf(top), ms)
    add(functions, `${top.functionName || "(anonymous)"} ${where(top)}`.trim(), ms)
    for (const activity of ACTIVITIES) if (stack.some(activity.match)) add(activities, activity.name, ms)
    const inside = new Set(
      stack.map((frame) => frame.functionName).filter((name) => FUNCTIONS.includes(name)),
    )
    for (const name of inside) add(named, name, ms)
    if (top.functionName !== "(idle)") {
      const owner = stack.find((frame) => frame.url.includes("/src/"))
      add(owners, owner ? where(owner) : "no agentloop frame on the stack", ms)
    }
    if (top.url.includes("/zod/")) {
      const caller = stack.find((frame) => !frame.url.includes("/zod/") && frame.url !== "")
      add(zodCallers, caller ? `${caller.functionName || "(anonymous)"} ${where(caller)}` : "(none)", ms)
    }
  }
  return { total, idle }
}

export type Breakdown = ReturnType<typeof breakdown>

/** Prints a breakdown of profiles that covered `steps` steps in all, per step. */
export function printBreakdown(found: Breakdown, steps: number): void {
  const perStep = (ms: number) => (ms / steps).toFixed(3)
  const share = (ms: number, name = "") =>
    name === "(idle)" ? "-" : `${((ms / found.busy) * 100).toFixed(1)}%`
  const rows = (map: Map<string, number>, limit: number) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([name, ms]) => [name, perStep(ms), share(ms, name)])
  console.log(`Busy (not idle): ${perStep(found.busy)} ms/step. Self time by where it is spent:`)
  printTable(["self time in", "ms/step", "share of busy"], rows(found.buckets, 30))
  console.log("\nActivities (a sample counts when any frame of its stack matches; they overlap):")
  printTable(
    ["activity", "ms/step", "share of busy"],
    ACTIVITIES.map(({ name }) => [
      name,
      perStep(found.activities.get(name) ?? 0),
      share(found.activities.get(name) ?? 0),
    ]),
  )
  console.log(
    "\nBusy time by the agentloop source file nearest the top of the stack (what it and everything it called synchronously cost):",
  )
  printTable(["source file", "ms/step", "share of busy"], rows(found.owners, 200))
  console.log(
    "\nTime inside these functions (what they call included; async functions only while on the stack):",
  )
  printTable(
    ["function", "ms/step", "share of busy"],
    FUNCTIONS.map((name) => [name, perStep(found.named.get(name) ?? 0), share(found.named.get(name) ?? 0)]),
  )
  console.log("\nzod's self time by the nearest caller outside zod:")
  printTable(["caller", "ms/step", "share of busy"], rows(found.zodCallers, 15))
  console.log("\nTop functions by self time:")
  printTable(["function", "ms/step", "share of busy"], rows(found.functions, 80))
}
