import * as path from "node:path"
import { z } from "zod"
import { match } from "../schema/permission-rules.js"
import { define, type ToolInfo } from "../tool/tool.js"
import { IGNORED_DIRECTORIES } from "./ignore.js"
import type { DirectoryEntry, Operations } from "./operations.js"
import type { PathOptions } from "./paths.js"
import { isProtected, protectedPaths } from "./protected-paths.js"
import { searchScope } from "./search-scope.js"

export const LIST_LIMIT = 100

const Parameters = z.object({
  path: z.string().optional().describe("The directory to list; default: the working directory"),
  ignore: z
    .array(z.string())
    .optional()
    .describe('Names or paths to leave out; * and ? are wildcards, e.g. ["*.log", "fixtures"]'),
})

const DESCRIPTION = `Lists a directory as a tree, breadth first, at most ${LIST_LIMIT} entries.
- Dependency, build and cache directories (node_modules, .git, dist, build, target, .venv, __pycache__, coverage, ...) are skipped.
- Prefer glob and grep when you know what you are looking for.`

type Node = { path: string; name: string; directory: boolean }

/** The `list` tool: asks `list` with the directory relative to the working directory. */
export function listTool(options: PathOptions): ToolInfo<typeof Parameters> {
  return define("list", {
    description: DESCRIPTION,
    fileChanges: "none",
    parameters: Parameters,
    async execute(args, context) {
      const scope = await searchScope("list", args.path, context, options)
      const hidden = await protectedPaths(context, options)
      const skip = (node: Node) =>
        isProtected(path.join(scope.target.real, node.path), hidden) ||
        (node.directory && (IGNORED_DIRECTORIES as readonly string[]).includes(node.name)) ||
        (args.ignore ?? []).some((pattern) => ignored(node, pattern))
      const { nodes, truncated } = await walk(options.operations, scope.target.real, skip, context.abort)
      const root = scope.target.display === "." ? "./" : `${scope.target.display}/`
      const note = truncated
        ? `\n\n(Showing the first ${LIST_LIMIT} entries. List a subdirectory to see more.)`
        : ""
      return {
        title: scope.target.display,
        output: `${root}\n${render(nodes)}${note}`,
        metadata: { count: nodes.length, truncated },
      }
    },
  })
}

/**
 * The entries under `root`, breadth first so the top levels show before any deep corner fills
 * the budget. Links are shown but not followed: they may lead out of the directory.
 */
async function walk(
  operations: Operations,
  root: string,
  skip: (node: Node) => boolean,
  signal: AbortSignal,
) {
  const nodes: Node[] = []
  let level = [""]
  while (level.length > 0) {
    signal.throwIfAborted()
    const listed = await Promise.all(
      level.map(async (folder) => ({
        folder,
        entries: await operations.list(path.join(root, folder)).catch(none),
      })),
    )
    const next: string[] = []
    for (const { folder, entries } of listed) {
      for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
        const node = toNode(folder, entry)
        if (skip(node)) continue
        if (nodes.length === LIST_LIMIT) return { nodes, truncated: true }
        nodes.push(node)
        if (entry.type === "directory") next.push(node.path)
      }
    }
    level = next
  }
  return { nodes, truncated: false }
}

function toNode(folder: string, entry: DirectoryEntry): Node {
  const relative = folder === "" ? entry.name : `${folder}/${entry.name}`
  return { path: relative, name: entry.name, directory: entry.type === "directory" }
}

/** An ignore pattern names an entry by its name or its path, with or without a trailing "/" or "/**". */
function ignored(node: Node, pattern: string): boolean {
  const bare = pattern.replace(/(\/\*\*)?\/?$/, "")
  return match(node.name, bare) || match(node.path, bare)
}

/** The tree, each level indented by two spaces, directories first and marked with "/". */
function render(nodes: Node[]): string {
  const children = new Map<string, Node[]>()
  for (const node of nodes) {
    const parent = path.posix.dirname(node.path)
    children.set(parent, [...(children.get(parent) ?? []), node])
  }
  const lines: string[] = []
  const visit = (folder: string, depth: number) => {
    const sorted = [...(children.get(folder) ?? [])].sort(
      (a, b) => Number(b.directory) - Number(a.directory) || a.name.localeCompare(b.name),
    )
    for (const node of sorted) {
      lines.push(`${"  ".repeat(depth + 1)}${node.name}${node.directory ? "/" : ""}`)
      if (node.directory) visit(node.path, depth + 1)
    }
  }
  visit(".", 0)
  return lines.join("\n")
}

function none(): DirectoryEntry[] {
  return []
}
