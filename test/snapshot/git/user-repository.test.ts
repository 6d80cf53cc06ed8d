import { execFile } from "node:child_process"
import { createHash } from "node:crypto"
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises"
import os from "node:os"
import path from "node:path"
import { promisify } from "node:util"
import { afterEach, describe, expect, it, vi } from "vitest"
import { GitSnapshot } from "../../../src/snapshot/git/index.js"

const run = promisify(execFile)
const roots: string[] = []
afterEach(async () => {
  vi.unstubAllEnvs()
  await Promise.all(roots.splice(0).map((root) => rm(root, { recursive: true, force: true })))
})

/** A user's repository: one commit, a staged change, an unstaged one and an untracked file. */
async function userRepository() {
  const root = await mkdtemp(path.join(os.tmpdir(), "agentloop-git-snapshot-user-"))
  roots.push(root)
  const directory = path.join(root, "repo")
  await mkdir(directory)
  const git = async (...args: string[]) =>
    (
      await run("git", ["-c", "user.name=User", "-c", "user.email=user@example.com", ...args], {
        cwd: directory,
        env: { ...process.env, GIT_OPTIONAL_LOCKS: "0" },
      })
    ).stdout
  await git("init", "--quiet", "--initial-branch=main")
  await writeFile(path.join(directory, "committed.txt"), "committed\n")
  await writeFile(path.join(directory, "staged.txt"), "staged\n")
  await git("add", "committed.txt", "staged.txt")
  await git("commit", "--quiet", "-m", "first")
  await writeFile(path.join(directory, "staged.txt"), "staged change\n")
  await git("add", "staged.txt")
  await writeFile(path.join(directory, "committed.txt"), "unstaged change\n")
  await writeFile(path.join(directory, "untracked.txt"), "untracked\n")
  return { root, directory, git }
}

/** Every file under `.git` and a hash of its bytes: any write to it shows. */
async function fingerprint(gitDir: string): Promise<Record<string, string>> {
  const entries = await readdir(gitDir, { recursive: true, withFileTypes: true })
  const files: Record<string, string> = {}
  for (const entry of entries.filter((candidate) => candidate.isFile())) {
    const file = path.join(entry.parentPath, entry.name)
    files[path.relative(gitDir, file)] = createHash("sha256")
      .update(await readFile(file))
      .digest("hex")
  }
  return files
}

describe("GitSnapshot in a git repository", () => {
  it("never changes the user's .git: HEAD, index, refs and status stay as they were", async () => {
    const { root, directory, git } = await userRepository()
    const before = await fingerprint(path.join(directory, ".git"))
    const status = await git("status", "--porcelain=v1", "-z", "--untracked-files=all")
    const snapshot = new GitSnapshot({ directory, dataDir: path.join(root, "data") })

    const start = (await snapshot.track())!
    await writeFile(path.join(directory, "committed.txt"), "agent edit\n")
    await writeFile(path.join(directory, "created.txt"), "created\n")
    const patch = await snapshot.patch(start)
    expect(patch.files.sort()).toEqual(["committed.txt", "created.txt"])
    expect(await snapshot.diff(start)).toHaveLength(2)
    const end = (await snapshot.track())!
    await snapshot.revert([patch])
    expect(await readFile(path.join(directory, "committed.txt"), "utf8")).toBe("unstaged change\n")
    await snapshot.restore(end)
    await snapshot.revert([patch])

    expect(await fingerprint(path.join(directory, ".git"))).toEqual(before)
    expect(await git("status", "--porcelain=v1", "-z", "--untracked-files=all")).toBe(status)
  })

  it("ignores GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE inherited from the host", async () => {
    const { root, directory } = await userRepository()
    const before = await fingerprint(path.join(directory, ".git"))
    vi.stubEnv("GIT_DIR", path.join(directory, ".git"))
    vi.stubEnv("GIT_WORK_TREE", directory)
    vi.stubEnv("GIT_INDEX_FILE", path.join(directory, ".git", "index"))
    const snapshot = new GitSnapshot({ directory, dataDir: path.join(root, "data") })
    const start = await snapshot.track()
    expect(start, snapshot.unavailableReason).toMatch(/^[0-9a-f]{40}$/)
    await writeFile(path.join(directory, "new.txt"), "new\n")
    expect((await snapshot.patch(start!)).files).toEqual(["new.txt"])
    expect(await fingerprint(path.join(directory, ".git"))).toEqual(before)
  })

  it("keeps the histories of directories sharing a data dir apart", async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), "agentloop-git-snapshot-shared-"))
    roots.push(root)
    const dataDir = path.join(root, "data")
    const [first, second] = ["first", "second"].map((name) => path.join(root, name))
    await mkdir(first!)
    await mkdir(second!)
    const one = new GitSnapshot({ directory: first!, dataDir })
    const two = new GitSnapshot({ directory: second!, dataDir })
    const startOne = (await one.track())!
    const startTwo = (await two.track())!
    await writeFile(path.join(first!, "one.txt"), "one\n")
    await writeFile(path.join(second!, "two.txt"), "two\n")
    expect((await one.patch(startOne)).files).toEqual(["one.txt"])
    expect((await two.patch(startTwo)).files).toEqual(["two.txt"])
    expect((await readdir(dataDir)).filter((name) => /^[0-9a-f]{32}$/.test(name))).toHaveLength(2)
  })

  it("keeps its data under XDG_DATA_HOME by default", async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), "agentloop-git-snapshot-xdg-"))
    roots.push(root)
    const directory = path.join(root, "work")
    await mkdir(directory)
    vi.stubEnv("XDG_DATA_HOME", path.join(root, "xdg"))
    const snapshot = new GitSnapshot({ directory })
    expect(await snapshot.track()).toMatch(/^[0-9a-f]{40}$/)
    expect(await readdir(path.join(root, "xdg", "agentloop", "snapshot"))).toEqual([
      expect.stringMatching(/^[0-9a-f]{32}$/),
    ])
  })
})
