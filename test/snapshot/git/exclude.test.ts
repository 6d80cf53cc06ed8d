import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises"
import os from "node:os"
import path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { InvalidInputError } from "../../../src/error/invalid-input.js"
import { GitSnapshot, SnapshotDataDirError } from "../../../src/snapshot/git/index.js"

const roots: string[] = []
afterEach(async () => {
  await Promise.all(roots.splice(0).map((root) => rm(root, { recursive: true, force: true })))
})

async function tempDirectory(): Promise<{ root: string; directory: string }> {
  const root = await mkdtemp(path.join(os.tmpdir(), "agentloop-git-snapshot-exclude-"))
  roots.push(root)
  const directory = path.join(root, "work")
  await mkdir(directory)
  return { root, directory }
}

function files(directory: string) {
  const at = (file: string) => path.join(directory, file)
  return {
    async write(file: string, content: string) {
      await mkdir(path.dirname(at(file)), { recursive: true })
      await writeFile(at(file), content)
    },
    text: (file: string) => readFile(at(file), "utf8"),
  }
}

async function track(snapshot: GitSnapshot): Promise<string> {
  const hash = await snapshot.track()
  expect(hash, snapshot.unavailableReason).toMatch(/^[0-9a-f]{40}$/)
  return hash!
}

const SQLITE = ["agent.db", "agent.db-wal", "agent.db-shm", "agent.db-journal"]

describe("GitSnapshot with its data directory inside the work tree", () => {
  it("never records its own git dir, so patch, diff and revert see only the project's files", async () => {
    const { directory } = await tempDirectory()
    const { write, text } = files(directory)
    await write("a.txt", "a before\n")
    const snapshot = new GitSnapshot({ directory, dataDir: path.join(directory, ".agentloop", "snapshot") })
    const before = await track(snapshot)
    await write("a.txt", "a after\n")
    const middle = await track(snapshot)
    await write("b.txt", "b\n")
    const patch = await snapshot.patch(before)
    expect(patch.files.sort()).toEqual(["a.txt", "b.txt"])
    expect((await snapshot.diff(before, middle)).map((change) => change.file)).toEqual(["a.txt"])
    await snapshot.revert([patch])
    expect(await text("a.txt")).toBe("a before\n")
    expect(await snapshot.patch(before)).toEqual({ hash: before, files: [] })
  })

  it("refuses at construction a data directory that is the work tree itself, saying what to change", () => {
    const directory = path.join(os.tmpdir(), "agentloop-project")
    const build = () => new GitSnapshot({ directory, dataDir: `${directory}${path.sep}.` })
    expect(build).toThrow(SnapshotDataDirError)
    expect(build).toThrow(/dataDir .* is the tracked directory itself: .*outside .* or a subdirectory/)
  })

  it("reports the same refusal when only the real paths show the data directory is the work tree", async () => {
    const { root, directory } = await tempDirectory()
    const link = path.join(root, "link")
    await symlink(directory, link)
    const snapshot = new GitSnapshot({ directory: link, dataDir: directory })
    expect(await snapshot.track()).toBeUndefined()
    expect(snapshot.unavailableReason).toMatch(/is the tracked directory itself/)
    const error = await snapshot.diff("4b825dc642cb6eb9a060e54bf8d69288fbee4904").catch((e: unknown) => e)
    expect(SnapshotDataDirError.isInstance(error)).toBe(true)
  })
})

describe("GitSnapshot exclude", () => {
  it("leaves out a SQLite database with its -wal, -shm and -journal files, given relative or absolute", async () => {
    for (const given of ["agent.db", "ABSOLUTE"]) {
      const { root, directory } = await tempDirectory()
      const { write, text } = files(directory)
      const exclude = [given === "ABSOLUTE" ? path.join(directory, "agent.db") : given]
      const snapshot = new GitSnapshot({ directory, dataDir: path.join(root, "data"), exclude })
      for (const file of SQLITE) await write(file, "first\n")
      await write("a.txt", "a before\n")
      const before = await track(snapshot)
      for (const file of SQLITE) await write(file, "second\n")
      await write("a.txt", "a after\n")
      const patch = await snapshot.patch(before)
      expect(patch.files, given).toEqual(["a.txt"])
      expect((await snapshot.diff(before)).map((change) => change.file)).toEqual(["a.txt"])
      await snapshot.revert([patch])
      await snapshot.restore(before)
      expect(await text("a.txt")).toBe("a before\n")
      for (const file of SQLITE) expect(await text(file)).toBe("second\n")
    }
  })

  it("leaves out a whole directory and ignores paths outside the work tree", async () => {
    const { root, directory } = await tempDirectory()
    const { write } = files(directory)
    const exclude = ["cache", path.join(root, "elsewhere.db")]
    const snapshot = new GitSnapshot({ directory, dataDir: path.join(root, "data"), exclude })
    const before = await track(snapshot)
    await write("cache/deep/x.bin", "x\n")
    await write("cache.txt", "not the directory\n")
    expect((await snapshot.patch(before)).files).toEqual(["cache.txt"])
  })

  it("keeps away from a file an earlier instance without the exclusion recorded", async () => {
    const { root, directory } = await tempDirectory()
    const { write, text } = files(directory)
    const dataDir = path.join(root, "data")
    await write("agent.db", "old rows\n")
    await write("a.txt", "a before\n")
    const before = await track(new GitSnapshot({ directory, dataDir }))
    const snapshot = new GitSnapshot({ directory, dataDir, exclude: ["agent.db"] })
    await write("agent.db", "new rows\n")
    await write("a.txt", "a after\n")
    const now = await track(snapshot)
    expect((await snapshot.patch(before)).files).toEqual(["a.txt"])
    expect((await snapshot.diff(before, now)).map((change) => change.file)).toEqual(["a.txt"])
    await snapshot.revert([{ hash: before, files: ["a.txt", "agent.db"] }])
    await snapshot.restore(before)
    expect(await text("a.txt")).toBe("a before\n")
    expect(await text("agent.db")).toBe("new rows\n")
  })

  it("refuses an exclusion that would leave out the whole work tree", async () => {
    const { root, directory } = await tempDirectory()
    const build = () => new GitSnapshot({ directory, dataDir: path.join(root, "data"), exclude: ["."] })
    expect(build).toThrow(InvalidInputError)
    expect(build).toThrow(/exclude\.0: .*whole directory/)
  })
})
