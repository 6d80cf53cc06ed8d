import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"

/**
 * A real work tree in a temp dir: `root` holds `.git` (so it is the work tree's root), and
 * `directory` is `root/a/b`, two levels below, where the runtime works.
 */
export async function skillTree() {
  const root = await realpath(await mkdtemp(join(tmpdir(), "agentloop-skills-")))
  const tree = join(root, "repo")
  await mkdir(join(tree, ".git"), { recursive: true })
  const directory = join(tree, "a", "b")
  await mkdir(directory, { recursive: true })
  return {
    /** The temp dir; the work tree is `tree` inside it, so a skill can sit above the work tree. */
    root,
    tree,
    directory,
    /** Writes a file relative to `tree`, creating directories; returns its absolute path. */
    async put(path: string, content: string) {
      const file = join(tree, path)
      await mkdir(dirname(file), { recursive: true })
      await writeFile(file, content)
      return file
    },
    cleanup: () => rm(root, { recursive: true, force: true }),
  }
}

/** A SKILL.md: front matter from `fields` (given as YAML lines), then the body. */
export function skillFile(fields: Record<string, string>, body = "Do the thing.\n"): string {
  const lines = Object.entries(fields).map(([key, value]) => `${key}: ${value}`)
  return `---\n${lines.join("\n")}\n---\n\n${body}`
}
