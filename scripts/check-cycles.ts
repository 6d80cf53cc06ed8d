// No import circles in src/ (type-only imports count: a reader follows them the same way).
// Prints every strongly connected group of files and exits 1 if there is one.
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import ts from "typescript"

const root = resolve(process.argv[2] ?? "src")
const files = readdirSync(root, { recursive: true, encoding: "utf8" })
  .filter((file) => file.endsWith(".ts"))
  .map((file) => join(root, file))

const graph = new Map<string, string[]>()
for (const file of files) {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true)
  const targets = importedFiles
    .map((entry) => entry.fileName)
    .filter((name) => name.startsWith("."))
    .map((name) => resolve(dirname(file), name.replace(/\.js$/, ".ts")))
  graph.set(
    file,
    targets.filter((target) => graph.has(target) || files.includes(target)),
  )
}

const cycles = stronglyConnected(graph).filter((group) => group.length > 1)
for (const group of cycles)
  console.log(
    `files that import each other in a circle: ${group.map((file) => relative(root, file)).join(", ")}`,
  )
console.log(`cycles: ${files.length} files, ${cycles.length} import circle(s)`)
process.exitCode = cycles.length === 0 ? 0 : 1

/** Tarjan's algorithm: the groups of files that can each reach every other file of the group. */
function stronglyConnected(edges: Map<string, string[]>): string[][] {
  let counter = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const groups: string[][] = []
  const visit = (node: string) => {
    index.set(node, counter)
    low.set(node, counter++)
    stack.push(node)
    onStack.add(node)
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next)
        low.set(node, Math.min(low.get(node)!, low.get(next)!))
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!))
    }
    if (low.get(node) !== index.get(node)) return
    const group: string[] = []
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member)
      group.push(member)
      if (member === node) break
    }
    groups.push(group)
  }
  for (const node of edges.keys()) if (!index.has(node)) visit(node)
  return groups
}
