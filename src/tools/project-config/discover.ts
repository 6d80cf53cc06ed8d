import * as path from "node:path"
import type { Operations } from "../operations.js"

/** A folder of markdown definitions inside a project folder, and whose convention it follows. */
export type Source = { kind: "agent" | "command"; folder: string; claude: boolean }

/** Where definitions live in each project folder; within one folder a later entry wins a name, so OpenCode's beat Claude Code's. */
export const SOURCES: readonly Source[] = [
  { kind: "agent", folder: ".claude/agents", claude: true },
  { kind: "agent", folder: ".opencode/agent", claude: false },
  { kind: "agent", folder: ".opencode/agents", claude: false },
  { kind: "command", folder: ".claude/commands", claude: true },
  { kind: "command", folder: ".opencode/command", claude: false },
  { kind: "command", folder: ".opencode/commands", claude: false },
]

// Deep enough for any namespace, and a bound on a symbolic link that loops back.
const MAX_DEPTH = 8

/** The `.md` files under `folder` at any depth (links followed), sorted; none when it is not a folder. */
export async function markdownFiles(
  operations: Operations,
  folder: string,
  signal?: AbortSignal,
  depth = 0,
): Promise<string[]> {
  const stat = await operations.stat(folder).catch(() => undefined)
  if (stat?.type !== "directory") return []
  const entries = (await operations.list(folder, { signal })).sort((a, b) => (a.name < b.name ? -1 : 1))
  const found: string[] = []
  for (const entry of entries) {
    const full = path.join(folder, entry.name)
    const type =
      entry.type === "symlink" ? (await operations.stat(full).catch(() => undefined))?.type : entry.type
    if (type === "directory" && depth < MAX_DEPTH)
      found.push(...(await markdownFiles(operations, full, signal, depth + 1)))
    else if (type === "file" && entry.name.endsWith(".md")) found.push(full)
  }
  return found
}

/** A file's name as a definition: its path under the source folder, with `/` and without `.md` (`git/commit`). */
export function entryName(folder: string, file: string): string {
  return path.relative(folder, file).split(path.sep).join("/").slice(0, -".md".length)
}
