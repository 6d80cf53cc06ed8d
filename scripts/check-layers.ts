// No import in src/ runs back up the layering (type-only imports count: a reader follows them
// the same way). Prints every import from a file to one in a higher layer, and every file no
// entry of LAYERS places, and exits 1 if there is either.
import { readdirSync, readFileSync } from "node:fs"
import { basename, dirname, join, relative, resolve } from "node:path"
import ts from "typescript"

/**
 * Path prefixes under src/ and their layer, lowest first. A file's layer is that of an entry
 * naming the file itself, else SURFACE for a folder entry or namespace barrel, else that of the
 * longest prefix. A file may import its own layer and the ones below it. A new folder needs an
 * entry here.
 */
const LAYERS: [prefix: string, layer: number][] = [
  // 0 base: helpers that know nothing of agents, sessions or storage.
  ["util/", 0],
  ["error/", 0],
  ["id/", 0],
  ["version.ts", 0],
  ["telemetry/", 0],
  // telemetry's index.ts is the folder's own interface, which the provider call uses.
  ["telemetry/index.ts", 0],
  // 1 shapes and ports: the data every service reads and writes (schema/, messages, events),
  // and the interfaces adapters implement (tool, provider, snapshot, coordination). Pure
  // functions of those shapes belong here too (permission rules); nothing here does I/O.
  ["schema/", 1],
  ["message/", 1],
  ["bus/", 1],
  ["tool/", 1],
  ["provider/", 1],
  ["snapshot/", 1],
  ["coordination/port.ts", 1],
  ["coordination/session-moved-error.ts", 1],
  // 2 storage: the port's adapters (and snapshot's git adapter) store shapes, know no service.
  ["storage/", 2],
  ["snapshot/git/", 2],
  // 3 the waiting-for-a-human core that the permission and question services share.
  ["ask/", 3],
  // 4 services: each owns one domain's state, over storage and the bus.
  ["session/", 4],
  ["permission/", 4],
  ["question/", 4],
  ["todo/", 4],
  ["agent/", 4],
  ["compaction/", 4],
  ["command/", 4],
  ["task/", 4],
  // the built-in agents' prompt texts, which the loop reads.
  ["agent/prompts/index.ts", 4],
  // 5 what relays services between processes.
  ["coordination/", 5],
  // 6 one model call: the processor and the provider call it drives.
  ["processor/", 6],
  ["provider-call/", 6],
  // 7 the run loop, and what runs beside it (the shell).
  ["loop/", 7],
  ["shell/", 7],
  // 8 the runtime: the composition root and the session API over the loop.
  ["runtime/", 8],
  // 9 the surface: entries, namespace barrels (see SURFACE_FILES) and plug-ins over the runtime.
  ["index.ts", 9],
  ["server/", 9],
  ["cli/", 9],
  ["testing/", 9],
  ["tools/", 9],
]

/** Namespace barrels and folder entries gather a folder for the package surface, whatever folder. */
const SURFACE_FILES = (file: string) => basename(file) === "index.ts" || file.endsWith("-namespace.ts")
const SURFACE = 9

const root = resolve(process.argv[2] ?? "src")
const files = readdirSync(root, { recursive: true, encoding: "utf8" })
  .filter((file) => file.endsWith(".ts"))
  .map((file) => file.replaceAll("\\", "/"))

const unplaced = files.filter((file) => layerOf(file) === undefined)
const upward: string[] = []
for (const file of files) {
  const from = layerOf(file)
  if (from === undefined) continue
  const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), "utf8"), true, true)
  for (const { fileName } of importedFiles) {
    if (!fileName.startsWith(".")) continue
    const target = relative(root, resolve(root, dirname(file), fileName.replace(/\.js$/, ".ts")))
    const to = layerOf(target.replaceAll("\\", "/"))
    if (to !== undefined && to > from) upward.push(`${file} [${from}] imports ${target} [${to}]`)
  }
}

for (const line of upward) console.log(`import runs up the layers: ${line}`)
for (const file of unplaced) console.log(`file in no layer (add its folder to LAYERS): ${file}`)
console.log(
  `layers: ${files.length} files, ${upward.length} import(s) running up, ${unplaced.length} file(s) in no layer`,
)
process.exitCode = upward.length === 0 && unplaced.length === 0 ? 0 : 1

function layerOf(file: string): number | undefined {
  const own = LAYERS.find(([prefix]) => prefix === file)
  if (own) return own[1]
  if (SURFACE_FILES(file)) return SURFACE
  let best: [string, number] | undefined
  for (const entry of LAYERS) {
    const matches = entry[0].endsWith("/") ? file.startsWith(entry[0]) : file === entry[0]
    if (matches && (!best || entry[0].length > best[0].length)) best = entry
  }
  return best?.[1]
}
