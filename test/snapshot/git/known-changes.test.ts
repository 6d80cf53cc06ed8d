import { execFile } from "node:child_process"
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, symlink, unlink, writeFile } from "node:fs/promises"
import os from "node:os"
import path from "node:path"
import { promisify } from "node:util"
import { afterEach, describe, expect, it } from "vitest"
import { GitSnapshot } from "../../../src/snapshot/git/index.js"

/**
 * `track({ from, changed })` and `patch(hash, { from, changed })`: the caller vouches that only
 * `changed` differ from the state `from`, and GitSnapshot records them without scanning the tree.
 * Every state is compared with what a second GitSnapshot, scanning the whole tree each time,
 * records for the same files: tree hashes depend only on content, so equal hashes mean
 * byte-identical snapshots.
 */

const run = promisify(execFile)
const roots: string[] = []
const opened: GitSnapshot[] = []
afterEach(async () => {
  await Promise.all(opened.splice(0).map((snapshot) => snapshot.close()))
  await Promise.all(roots.splice(0).map((root) => rm(root, { recursive: true, force: true })))
})

async function workspace() {
  const root = await mkdtemp(path.join(os.tmpdir(), "agentloop-git-known-"))
  roots.push(root)
  const directory = path.join(root, "work")
  await mkdir(directory)
  // Counts the git processes the snapshot under test starts.
  const log = path.join(root, "git.log")
  const wrapper = path.join(root, "git-counting")
  await writeFile(wrapper, `#!/bin/sh\necho "$1" >> '${log}'\nexec git "$@"\n`)
  await chmod(wrapper, 0o755)
  const exclude = ["private"]
  const snapshot = new GitSnapshot({ directory, dataDir: path.join(root, "data"), git: wrapper, exclude })
  const reference = new GitSnapshot({ directory, dataDir: path.join(root, "reference"), exclude })
  opened.push(snapshot, reference)
  const at = (file: string) => path.join(directory, file)
  const gitCalls = async () =>
    (await readFile(log, "utf8").catch(() => "")).split("\n").filter((line) => line !== "").length
  return {
    root,
    directory,
    snapshot,
    reference,
    at,
    gitCalls,
    async write(file: string, content: string | Buffer) {
      await mkdir(path.dirname(at(file)), { recursive: true })
      await writeFile(at(file), content)
    },
    remove: (file: string) => unlink(at(file)),
  }
}

type Workspace = Awaited<ReturnType<typeof workspace>>

async function full(snapshot: GitSnapshot): Promise<string> {
  const hash = await snapshot.track()
  expect(hash, snapshot.unavailableReason).toMatch(/^[0-9a-f]{40}$/)
  return hash!
}

/**
 * Records the declared changes on the snapshot under test and checks them against a full scan;
 * with `processes`, checks how many git processes that took.
 */
async function step(space: Workspace, from: string, changed: string[], processes?: number): Promise<string> {
  const before = await space.gitCalls()
  const hash = await space.snapshot.track({ from, changed })
  if (processes !== undefined) expect(await space.gitCalls()).toBe(before + processes)
  expect(hash).toBe(await full(space.reference))
  return hash!
}

async function seed(space: Workspace) {
  await space.write(".gitignore", "*.log\nbuild/\n")
  for (const directory of ["src/a", "src/b", "docs"])
    for (let file = 0; file < 5; file++)
      await space.write(`${directory}/file-${file}.ts`, `${directory} ${file}\n`)
  await space.write("notes.log", "ignored\n")
  const base = await full(space.snapshot)
  expect(base).toBe(await full(space.reference))
  return base
}

describe("GitSnapshot with the changes known", () => {
  it("records edited and deleted files without a git process, as a full scan would", async () => {
    const space = await workspace()
    const base = await seed(space)
    await space.write("src/a/file-1.ts", "edited\n")
    await space.write("docs/file-4.ts", "edited too\n")
    await space.remove("src/b/file-0.ts")
    const calls = await space.gitCalls()
    // Absolute paths, or relative to the directory.
    const after = await step(
      space,
      base,
      [space.at("src/a/file-1.ts"), "docs/file-4.ts", "src/b/file-0.ts"],
      0,
    )
    const patch = await space.snapshot.patch(base, { from: after, changed: [] })
    expect(await space.gitCalls()).toBe(calls)
    expect(patch).toEqual({ hash: base, files: ["docs/file-4.ts", "src/a/file-1.ts", "src/b/file-0.ts"] })
    expect(patch).toEqual(await space.reference.patch(base))
    expect(await space.snapshot.diff(base, after)).toEqual(await space.reference.diff(base))
  })

  it("records nothing new when no declared file changed, and a patch from the same state is empty", async () => {
    const space = await workspace()
    const base = await seed(space)
    const calls = await space.gitCalls()
    expect(await step(space, base, [])).toBe(base)
    expect(await step(space, base, ["src/a/file-2.ts"])).toBe(base)
    expect(await space.snapshot.patch(base, { from: base, changed: ["src/a/file-2.ts"] })).toEqual({
      hash: base,
      files: [],
    })
    expect(await space.gitCalls()).toBe(calls)
  })

  it("leaves out what a full scan leaves out, asking git only which new files are ignored", async () => {
    const space = await workspace()
    const base = await seed(space)
    await space.write("new/created.ts", "new\n")
    await space.write("build/out.js", "ignored directory\n")
    await space.write("debug.log", "ignored file\n")
    await space.write("private/secret.txt", "excluded\n")
    await space.write("big.bin", Buffer.alloc(3 * 1024 * 1024, 1))
    await chmod(space.at("src/a/file-0.ts"), 0o755)
    const changed = [
      "new/created.ts",
      "build/out.js",
      "debug.log",
      "private/secret.txt",
      "big.bin",
      "src/a/file-0.ts",
      // Outside the directory: not the snapshot's to record.
      path.join(path.dirname(space.directory), "elsewhere.ts"),
    ]
    // `git config` for where the excludes file is, and the check-ignore kept for later steps.
    const after = await step(space, base, changed, 2)
    expect(await space.snapshot.patch(base, { from: base, changed })).toEqual(
      await space.reference.patch(base),
    )
    expect((await space.snapshot.patch(base, { from: after, changed: [] })).files).toEqual([
      "new/created.ts",
      "src/a/file-0.ts",
    ])
  })

  it("scans for a new file in a nested repository, a file turned into a link or directory, a directory removed", async () => {
    const space = await workspace()
    const base = await seed(space)
    await space.write("vendor/lib/index.ts", "nested\n")
    await run("git", ["init", "--quiet", space.at("vendor/lib")])
    const nested = await step(space, base, ["vendor/lib/index.ts"])
    expect(nested).toBe(base)
    await space.remove("docs/file-2.ts")
    await space.write("docs/file-2.ts/inner.ts", "a directory now\n")
    await rm(space.at("src/b"), { recursive: true })
    await space.remove("docs/file-3.ts")
    await symlink("file-0.ts", space.at("docs/file-3.ts"))
    const after = await step(space, base, ["docs/file-2.ts/inner.ts", "src/b", "docs/file-3.ts"])
    expect(await space.snapshot.patch(base, { from: after, changed: [] })).toEqual(
      await space.reference.patch(base),
    )
  })

  it("never reads a tracked file through a folder since swapped for a link out of the directory", async () => {
    const space = await workspace()
    const base = await seed(space)
    const outside = path.join(space.root, "outside")
    await mkdir(outside)
    await writeFile(path.join(outside, "file-1.ts"), "the host's secret\n")
    await rm(space.at("src/a"), { recursive: true })
    await symlink(outside, space.at("src/a"))
    // As a scan records it: `src/a` a link, its files gone; never the outside file's content.
    await step(space, base, ["src/a/file-1.ts"])
    const diff = await space.snapshot.diff(base)
    expect(JSON.stringify(diff)).not.toContain("secret")
  })

  it("scans the whole tree when a declared change is a .gitignore, or the state is not one it holds", async () => {
    const space = await workspace()
    const base = await seed(space)
    // No longer ignoring *.log brings notes.log in, which no declared path names.
    await space.write(".gitignore", "build/\n")
    await step(space, base, [".gitignore"])
    await space.write("src/a/file-0.ts", "after an unknown state\n")
    await step(space, "0".repeat(40), ["src/a/file-0.ts"])
    await step(space, "not a hash", ["src/a/file-0.ts"])
  })

  it("keeps files it recorded alone as a full scan keeps them after the tree changes behind it", async () => {
    const space = await workspace()
    const base = await seed(space)
    await space.write("made.txt", "by a declared write\n")
    await space.write("grown.txt", "small\n")
    await space.remove("src/a/file-4.ts")
    const after = await step(space, base, ["made.txt", "grown.txt", "src/a/file-4.ts"], 2)
    // Then a command ignores one, grows another past 2 MB and brings the deleted one back, ignored:
    // the first two stay recorded (they were tracked), the third stays out (it was not).
    await space.write(".gitignore", "*.log\nbuild/\nmade.txt\nsrc/a/file-4.ts\n")
    await space.write("grown.txt", Buffer.alloc(3 * 1024 * 1024, 2))
    await space.write("src/a/file-4.ts", "back\n")
    const scanned = await full(space.snapshot)
    expect(scanned).toBe(await full(space.reference))
    expect(await space.snapshot.patch(after, { from: scanned, changed: [] })).toEqual(
      await space.reference.patch(after),
    )
  })

  it("writes objects git reads as its own: git fsck --strict finds nothing wrong", async () => {
    const space = await workspace()
    const base = await seed(space)
    await space.write("src/a/file-0.ts", "x".repeat(3000))
    await space.write("src/large.ts", "y".repeat(100_000))
    await space.write("deep/er/still/new.ts", "new\n")
    await space.remove("docs/file-0.ts")
    await step(space, base, ["src/a/file-0.ts", "src/large.ts", "deep/er/still/new.ts", "docs/file-0.ts"], 2)
    const [gitDir] = await readdir(path.join(space.root, "data"))
    const fsck = await run("git", ["--git-dir", path.join(space.root, "data", gitDir!), "fsck", "--strict"])
    expect(fsck.stderr).not.toMatch(/error|bad|corrupt|missing/i)
  })

  it("answers a patch with changes known since a state other than the patch's", async () => {
    const space = await workspace()
    const base = await seed(space)
    await space.write("src/a/file-1.ts", "one\n")
    const middle = await step(space, base, ["src/a/file-1.ts"], 0)
    await space.write("src/a/file-1.ts", "src a 1\n")
    await space.write("src/b/file-1.ts", "two\n")
    const changed = ["src/a/file-1.ts", "src/b/file-1.ts"]
    expect(await space.snapshot.patch(base, { from: middle, changed })).toEqual(
      await space.reference.patch(base),
    )
    expect(await space.snapshot.patch(middle, { from: middle, changed })).toEqual(
      await space.reference.patch(middle),
    )
  })
})
