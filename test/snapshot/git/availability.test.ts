import { createHash } from "node:crypto"
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import os from "node:os"
import path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { InvalidInputError } from "../../../src/error/invalid-input.js"
import { GitSnapshot, SnapshotUnavailableError } from "../../../src/snapshot/git/index.js"
import type { Snapshot } from "../../../src/snapshot/port.js"

const roots: string[] = []
afterEach(async () => {
  for (const root of roots.splice(0)) {
    await chmod(root, 0o700).catch(() => undefined)
    await rm(root, { recursive: true, force: true })
  }
})

async function tempRoot(): Promise<{ root: string; directory: string }> {
  const root = await mkdtemp(path.join(os.tmpdir(), "agentloop-git-snapshot-fail-"))
  roots.push(root)
  const directory = path.join(root, "work")
  await mkdir(directory)
  await writeFile(path.join(directory, "file.txt"), "content\n")
  return { root, directory }
}

const SOME_HASH = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

/** Every method but track, each expected to reject with SnapshotUnavailableError matching `message`. */
async function expectAllUnavailable(snapshot: Snapshot, message: RegExp) {
  const calls = [
    snapshot.patch(SOME_HASH),
    snapshot.diff(SOME_HASH),
    snapshot.restore(SOME_HASH),
    snapshot.revert([{ hash: SOME_HASH, files: ["file.txt"] }]),
  ]
  for (const call of calls) {
    const error = await call.then(
      () => undefined,
      (rejection: unknown) => rejection,
    )
    expect(SnapshotUnavailableError.isInstance(error), String(error)).toBe(true)
    expect((error as SnapshotUnavailableError).message).toMatch(message)
  }
}

describe("GitSnapshot when it cannot work", () => {
  it("without git, track resolves undefined and says why, and the other methods reject", async () => {
    const { root, directory } = await tempRoot()
    const snapshot = new GitSnapshot({ directory, dataDir: path.join(root, "data"), git: "/nonexistent/git" })
    expect(await snapshot.track()).toBeUndefined()
    expect(snapshot.unavailableReason).toBe("git not found: /nonexistent/git")
    await expectAllUnavailable(snapshot, /git not found/)
  })

  it("with a data dir it cannot create, track resolves undefined and the other methods reject", async () => {
    const { root, directory } = await tempRoot()
    // chmod does not stop root; a regular file standing where a parent directory should be does.
    const parent = path.join(root, "parent")
    if (process.getuid?.() === 0) await writeFile(parent, "a file, not a directory")
    else await mkdir(parent, { mode: 0o500 })
    const snapshot = new GitSnapshot({ directory, dataDir: path.join(parent, "data") })
    expect(await snapshot.track()).toBeUndefined()
    expect(snapshot.unavailableReason).toMatch(/^Cannot write snapshot data directory .*parent.data: E[A-Z]+/)
    await expectAllUnavailable(snapshot, /Cannot write snapshot data directory/)
    // The work tree is untouched.
    expect(await readFile(path.join(directory, "file.txt"), "utf8")).toBe("content\n")
  })

  it("tries again on the next call, so a directory created later is tracked", async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), "agentloop-git-snapshot-late-"))
    roots.push(root)
    const directory = path.join(root, "later")
    const snapshot = new GitSnapshot({ directory, dataDir: path.join(root, "data") })
    expect(await snapshot.track()).toBeUndefined()
    expect(snapshot.unavailableReason).toMatch(/^Cannot read directory .*later: ENOENT/)
    await mkdir(directory)
    expect(await snapshot.track()).toMatch(/^[0-9a-f]{40}$/)
    expect(snapshot.unavailableReason).toBeUndefined()
  })

  it("rejects a hash its history does not hold with SnapshotUnavailableError", async () => {
    const { root, directory } = await tempRoot()
    const snapshot = new GitSnapshot({ directory, dataDir: path.join(root, "data") })
    const known = (await snapshot.track())!
    for (const hash of ["0".repeat(40), "not-a-hash", "--output=/tmp/x", "ab".repeat(32)]) {
      await expect(snapshot.patch(hash)).rejects.toMatchObject({
        name: "SnapshotUnavailableError",
        message: `Unknown snapshot state: ${JSON.stringify(hash)}`,
      })
      await expect(snapshot.diff(known, hash)).rejects.toMatchObject({ name: "SnapshotUnavailableError" })
      await expect(snapshot.restore(hash)).rejects.toMatchObject({ name: "SnapshotUnavailableError" })
      await expect(snapshot.revert([{ hash, files: ["file.txt"] }])).rejects.toMatchObject({
        name: "SnapshotUnavailableError",
      })
    }
    // The recorded file's blob is in the history, but it is not a state.
    const blob = createHash("sha1").update("blob 8\0content\n").digest("hex")
    await expect(snapshot.restore(blob)).rejects.toMatchObject({ name: "SnapshotUnavailableError" })
    await expect(snapshot.patch(blob)).rejects.toMatchObject({ name: "SnapshotUnavailableError" })
    expect(await snapshot.track()).toBe(known)
  })

  it("refuses options and patches that are not valid with InvalidInputError", async () => {
    const { root, directory } = await tempRoot()
    for (const options of [{ directory: "" }, { directory, extra: 1 }, {}, { directory, git: "" }]) {
      expect(() => new GitSnapshot(options as never)).toThrow(InvalidInputError)
    }
    const snapshot = new GitSnapshot({ directory, dataDir: path.join(root, "data") })
    const known = (await snapshot.track())!
    await writeFile(path.join(root, "outside.txt"), "outside\n")
    for (const file of ["../outside.txt", "/etc/passwd", ".git/config", "a/../../outside.txt", ""]) {
      const error = await snapshot
        .revert([{ hash: known, files: [file] }])
        .catch((rejection: unknown) => rejection)
      expect(InvalidInputError.isInstance(error), `${file}: ${String(error)}`).toBe(true)
    }
    expect(await readFile(path.join(root, "outside.txt"), "utf8")).toBe("outside\n")
    await expect(snapshot.patch(42 as never)).rejects.toThrow(InvalidInputError)
  })
})
