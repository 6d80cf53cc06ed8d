import { join, resolve } from "node:path"
import { foldersDown, isFile } from "../instructions/discover.js"
import type { Operations } from "../operations.js"

/** The folders, under each directory up the tree, that hold skills: OpenCode's, Claude's and the shared one. */
export const SKILL_FOLDERS = [
  ".opencode/skill",
  ".opencode/skills",
  ".claude/skills",
  ".agents/skills",
] as const

/** How deep below a skills folder a skill's folder may sit: `skills/a/b/c/SKILL.md`. */
export const MAX_SKILL_DEPTH = 3

/** Folders never searched for skills: they hold other projects' files, not this one's. */
const SKIPPED = new Set([".git", "node_modules"])

/**
 * Every `SKILL.md` the catalogue reads, nearest first: in each directory from `directory` up to
 * `root` (`directory` alone when `root` is not above it), the skills folders in `SKILL_FOLDERS`
 * order; then each of `dirs` (relative ones against `directory`), which may be a skills folder
 * or one skill's own folder.
 */
export async function skillFiles(
  operations: Operations,
  input: { directory: string; root: string; dirs: readonly string[] },
): Promise<string[]> {
  const nearestFirst = foldersDown(input.root, input.directory).reverse()
  const bases = nearestFirst.flatMap((folder) => SKILL_FOLDERS.map((name) => join(folder, name)))
  const files: string[] = []
  for (const base of bases) files.push(...(await skillsUnder(operations, base)))
  for (const dir of input.dirs) {
    const base = resolve(input.directory, dir)
    const own = join(base, "SKILL.md")
    files.push(...((await isFile(operations, own)) ? [own] : await skillsUnder(operations, base)))
  }
  return files
}

/**
 * The `SKILL.md` of each skill folder under `base`, by name, depth first: a folder holding a
 * `SKILL.md` is a skill, and its own subfolders (scripts, references) are not searched.
 * Links to folders are followed, within `MAX_SKILL_DEPTH` (so a loop ends).
 */
async function skillsUnder(operations: Operations, base: string): Promise<string[]> {
  const found: string[] = []
  const visit = async (folder: string, depth: number): Promise<void> => {
    const entries = await operations.list(folder).catch(() => [])
    const names = entries
      .filter((entry) => (entry.type === "directory" || entry.type === "symlink") && !SKIPPED.has(entry.name))
      .map((entry) => entry.name)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    for (const name of names) {
      const child = join(folder, name)
      const file = join(child, "SKILL.md")
      if (await isFile(operations, file)) found.push(file)
      else if (depth < MAX_SKILL_DEPTH) await visit(child, depth + 1)
    }
  }
  await visit(base, 1)
  return found
}
