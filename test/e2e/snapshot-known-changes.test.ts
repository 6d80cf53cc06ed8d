import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import type { MessageV2, Snapshot } from "../../src/index.js"
import { GitSnapshot } from "../../src/snapshot/git/index.js"
import { createTestRuntime, say, type Turn } from "../../src/testing/index.js"
import { codingTools } from "../../src/tools/index.js"

const cleanup: string[] = []
afterEach(async () => {
  for (const dir of cleanup.splice(0)) await rm(dir, { recursive: true, force: true })
})

/** Three turns of write, edit and bash calls; the first turn mixes all three across steps. */
const TURNS: Turn[] = [
  [
    say.toolCall("write", { filePath: "src/new.ts", content: "export const made = 1\n" }),
    say.toolCall("edit", { filePath: "src/app.ts", oldString: "return 1", newString: "return 2" }),
  ],
  [
    say.toolCall("write", { filePath: "debug.log", content: "ignored\n" }),
    say.toolCall("write", { filePath: "docs/guide.md", content: "# Guide\n" }),
    say.toolCall("read", { filePath: "src/app.ts" }),
  ],
  [say.toolCall("bash", { command: "echo made > by-bash.txt && rm README.md", description: "Change files" })],
  [say.toolCall("edit", { filePath: "src/new.ts", oldString: "made = 1", newString: "made = 2" })],
  [say.text("turn one done")],
  [
    say.toolCall("edit", { filePath: "src/app.ts", oldString: "return 2", newString: "return 3" }),
    say.toolCall("write", { filePath: "src/new.ts", content: "export const made = 3\n" }),
  ],
  [say.text("turn two done")],
  [say.toolCall("write", { filePath: "a.txt", content: "three\n" })],
  [say.text("turn three done")],
]

/** Every file under the directory, byte for byte. */
async function files(directory: string): Promise<Record<string, string>> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true })
  const found: Record<string, string> = {}
  for (const entry of entries)
    if (entry.isFile()) {
      const path = join(entry.parentPath, entry.name)
      found[path.slice(directory.length + 1)] = (await readFile(path)).toString("base64")
    }
  return found
}

/** Runs the three turns on a fresh directory, with GitSnapshot used as given or through a host port without `known`. */
async function session(useKnown: boolean) {
  const root = await mkdtemp(join(tmpdir(), "agentloop-known-e2e-"))
  cleanup.push(root)
  const directory = join(root, "work")
  await mkdir(join(directory, "src"), { recursive: true })
  await writeFile(join(directory, ".gitignore"), "*.log\n")
  await writeFile(join(directory, "README.md"), "readme\n")
  await writeFile(join(directory, "src/app.ts"), "export function main() {\n  return 1\n}\n")
  const log = join(root, "git.log")
  const wrapper = join(root, "git-counting")
  await writeFile(wrapper, `#!/bin/sh\necho "$1" >> '${log}'\nexec git "$@"\n`)
  await chmod(wrapper, 0o755)
  const git = new GitSnapshot({ directory, dataDir: join(root, "data"), git: wrapper })
  // A host's Snapshot written before `known` existed: every track and patch scans.
  const scanning: Snapshot = {
    track: () => git.track(),
    patch: (hash) => git.patch(hash),
    diff: (from, to) => git.diff(from, to),
    restore: (hash) => git.restore(hash),
    revert: (patches) => git.revert(patches),
  }
  const { runtime } = createTestRuntime({
    directory,
    tools: codingTools({ directory }),
    snapshot: useKnown ? git : scanning,
    permission: [{ permission: "*", pattern: "*", action: "allow" }],
    turns: TURNS,
  })
  const { id: sessionID } = await runtime.session.create()
  const users: string[] = []
  for (const text of ["one", "two", "three"]) {
    const answer = await runtime.session.prompt({ sessionID, parts: [{ type: "text", text }] })
    if (answer.info.role === "assistant") users.push(answer.info.parentID)
  }
  const gitCalls = (await readFile(log, "utf8")).split("\n").filter((line) => line !== "").length
  const messages = await runtime.session.messages(sessionID)
  const recorded = messages.flatMap((message) =>
    message.parts.flatMap((part: MessageV2.Part) => {
      if (part.type === "step-start" || part.type === "step-finish") return [`${part.type} ${part.snapshot}`]
      if (part.type === "patch") return [`patch ${part.hash} ${part.files.join(",")}`]
      return []
    }),
  )
  const diffs = {
    session: await runtime.session.diff({ sessionID }),
    turns: await Promise.all(users.map((messageID) => runtime.session.diff({ sessionID, messageID }))),
  }
  const after = await files(directory)
  await runtime.session.revert({ sessionID, messageID: users[1]! })
  const reverted = await files(directory)
  const revert = (await runtime.session.get(sessionID)).revert?.diff
  await runtime.session.unrevert({ sessionID })
  const unreverted = await files(directory)
  return { gitCalls, recorded, diffs, after, reverted, revert, unreverted }
}

describe("snapshots of steps whose tools declare their changes", () => {
  it("records, diffs and reverts byte for byte as scanning every step does, with fewer git processes", async () => {
    const known = await session(true)
    const scanned = await session(false)
    expect(known.recorded).toEqual(scanned.recorded)
    expect(known.diffs).toEqual(scanned.diffs)
    expect(known.revert).toEqual(scanned.revert)
    expect(known.after).toEqual(scanned.after)
    expect(known.reverted).toEqual(scanned.reverted)
    expect(known.unreverted).toEqual(scanned.after)
    expect(scanned.unreverted).toEqual(scanned.after)
    // What the turns did, to be sure the comparison compares something.
    expect(
      known.recorded.filter((entry) => entry.startsWith("patch")).map((entry) => entry.split(" ")[2]),
    ).toEqual([
      "src/app.ts,src/new.ts",
      "docs/guide.md",
      "README.md,by-bash.txt",
      "src/new.ts",
      "src/app.ts,src/new.ts",
      "a.txt",
    ])
    expect(Buffer.from(known.reverted["src/app.ts"]!, "base64").toString()).toContain("return 2")
    expect(known.gitCalls).toBeLessThan(scanned.gitCalls / 2)
    // Two sessions of git work: 1.6 s alone, over 5 s once while a build ran beside the suite.
  }, 20_000)
})
