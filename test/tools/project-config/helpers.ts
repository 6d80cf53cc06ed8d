import { execFileSync } from "node:child_process"
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"

/**
 * A temp folder for a project: `put` writes files under it, `git` makes it (or a folder in it) a
 * git work tree with `git init`, `marker` with a bare `.git` folder (cheaper, same meaning).
 */
export async function tempTree() {
  const root = await realpath(await mkdtemp(join(tmpdir(), "agentloop-project-config-")))
  return {
    root,
    path: (...parts: string[]) => join(root, ...parts),
    async put(path: string, content: string) {
      const file = join(root, path)
      await mkdir(dirname(file), { recursive: true })
      await writeFile(file, content)
      return file
    },
    git(folder = ".") {
      execFileSync("git", ["init", "-q", join(root, folder)], { timeout: 10_000 })
    },
    async marker(folder = ".") {
      await mkdir(join(root, folder, ".git"), { recursive: true })
    },
    cleanup: () => rm(root, { recursive: true, force: true }),
  }
}

export type TempTree = Awaited<ReturnType<typeof tempTree>>

/** A markdown file with front matter `lines` (YAML) and `body`. */
export function md(lines: string, body: string): string {
  return `---\n${lines}\n---\n${body}`
}

/** Warnings collected instead of printed. */
export function warnings() {
  const seen: string[] = []
  return { seen, onWarning: (message: string) => seen.push(message) }
}
