import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import type { CallOptions } from "../../../src/testing/index.js"

/**
 * A real temporary tree: `base/repo` is a git work tree (a `.git` folder), `base/repo/pkg` the
 * runtime's directory, `base/home` a fake home directory.
 */
export async function instructionTree() {
  const base = await realpath(await mkdtemp(join(tmpdir(), "agentloop-instructions-")))
  const repo = join(base, "repo")
  const directory = join(repo, "pkg")
  const home = join(base, "home")
  await mkdir(join(repo, ".git"), { recursive: true })
  await mkdir(directory, { recursive: true })
  await mkdir(home, { recursive: true })
  return {
    base,
    repo,
    directory,
    home,
    /** Writes a file relative to `base` ("repo/AGENTS.md"), creating folders; returns its absolute path. */
    async put(path: string, content: string) {
      const file = join(base, path)
      await mkdir(dirname(file), { recursive: true })
      await writeFile(file, content)
      return file
    },
    cleanup: () => rm(base, { recursive: true, force: true }),
  }
}

/** The source's input for a session of the test tree. */
export function sourceInput(directory: string, sessionID = "session") {
  return { sessionID, directory, agent: "build", signal: new AbortController().signal }
}

/** The block a file gives: the header OpenCode writes, then its text. */
export const block = (file: string, text: string) => `Instructions from: ${file}\n${text}`

/** The system messages' texts of one model call. */
export function systemOf(call: CallOptions | undefined): string[] {
  return (call?.prompt ?? []).flatMap((message) => (message.role === "system" ? [message.content] : []))
}
