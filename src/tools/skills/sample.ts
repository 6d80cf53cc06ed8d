import { join } from "node:path"
import type { Operations } from "../operations.js"

/** How many of a skill's files the tool lists. */
export const SAMPLE_LIMIT = 10

/** Folders not listed among a skill's files: another project's history and dependencies. */
const SKIPPED = new Set([".git", "node_modules"])

/**
 * Up to `SAMPLE_LIMIT` files in the skill's folder (absolute paths), breadth first so its
 * top-level scripts and references show before a deep corner fills the list; the `SKILL.md`
 * itself is left out, hidden files are not. Links are listed but not followed.
 */
export async function sampleFiles(
  operations: Operations,
  directory: string,
  signal: AbortSignal,
): Promise<string[]> {
  const files: string[] = []
  let level = [directory]
  while (level.length > 0 && files.length < SAMPLE_LIMIT) {
    const next: string[] = []
    for (const folder of level) {
      signal.throwIfAborted()
      const entries = await operations.list(folder, { signal }).catch(() => [])
      for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
        const path = join(folder, entry.name)
        if (entry.type === "directory") {
          if (!SKIPPED.has(entry.name)) next.push(path)
        } else if (!(folder === directory && entry.name === "SKILL.md") && files.length < SAMPLE_LIMIT) {
          files.push(path)
        }
      }
    }
    level = next
  }
  return files
}
