import * as path from "node:path"
import type { Operations } from "./operations.js"
import { levenshtein } from "./similarity.js"

const MAX_SUGGESTIONS = 3

/**
 * Names next to a missing file that the model may have meant: one containing the other, or a
 * few typos away (case ignored). Paths are shown the way the caller shows the missing one.
 */
export async function similarNames(operations: Operations, file: string, shown: string): Promise<string[]> {
  const wanted = path.basename(file).toLowerCase()
  const entries = await operations.list(path.dirname(file)).catch(() => [])
  const scored = entries
    .map((entry) => ({ name: entry.name, score: distance(entry.name.toLowerCase(), wanted) }))
    .filter((entry) => entry.score !== undefined)
    .sort((a, b) => a.score! - b.score! || a.name.localeCompare(b.name))
  const folder = path.posix.dirname(shown)
  return scored
    .slice(0, MAX_SUGGESTIONS)
    .map((entry) => (folder === "." ? entry.name : `${folder}/${entry.name}`))
}

/** Lower is closer; undefined when the names have too little in common. */
function distance(name: string, wanted: string): number | undefined {
  if (name.includes(wanted) || wanted.includes(name)) return Math.abs(name.length - wanted.length) / 100
  const edits = levenshtein(name, wanted)
  return edits <= Math.max(2, Math.floor(wanted.length / 4)) ? edits : undefined
}
