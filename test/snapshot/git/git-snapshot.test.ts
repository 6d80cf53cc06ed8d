import { mkdir, mkdtemp, readFile, rm, stat, unlink, writeFile } from "node:fs/promises"
import os from "node:os"
import path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { GitSnapshot } from "../../../src/snapshot/git/index.js"

const roots: string[] = []
afterEach(async () => {
  await Promise.all(roots.splice(0).map((root) => rm(root, { recursive: true, force: true })))
})

/** A fresh directory to track (not a repository) and a snapshot of it with its own data dir. */
async function workspace() {
  const root = await mkdtemp(path.join(os.tmpdir(), "agentloop-git-snapshot-"))
  roots.push(root)
  const directory = path.join(root, "work")
  await mkdir(directory)
  const snapshot = new GitSnapshot({ directory, dataDir: path.join(root, "data") })
  const at = (file: string) => path.join(directory, file)
  return {
    directory,
    snapshot,
    async write(file: string, content: string | Buffer) {
      await mkdir(path.dirname(at(file)), { recursive: true })
      await writeFile(at(file), content)
    },
    read: (file: string) => readFile(at(file)),
    text: (file: string) => readFile(at(file), "utf8"),
    remove: (file: string) => unlink(at(file)),
    exists: (file: string) =>
      stat(at(file)).then(
        () => true,
        () => false,
      ),
  }
}

async function track(snapshot: GitSnapshot): Promise<string> {
  const hash = await snapshot.track()
  expect(hash, snapshot.unavailableReason).toMatch(/^[0-9a-f]{40}$/)
  return hash!
}

describe("GitSnapshot", () => {
  it("tracks a directory that is not a repository and finds the files changed since a state", async () => {
    const { snapshot, write, remove } = await workspace()
    await write("a.txt", "a\n")
    await write("b.txt", "b\n")
    const before = await track(snapshot)
    expect(await snapshot.patch(before)).toEqual({ hash: before, files: [] })
    await write("a.txt", "a changed\n")
    await remove("b.txt")
    await write("src/c.txt", "c\n")
    const patch = await snapshot.patch(before)
    expect(patch.hash).toBe(before)
    expect(patch.files.sort()).toEqual(["a.txt", "b.txt", "src/c.txt"])
    expect(await track(snapshot)).not.toBe(before)
  })

  it("gives the same hash for the same contents, including an empty directory", async () => {
    const { snapshot, write, remove } = await workspace()
    const empty = await track(snapshot)
    expect(await track(snapshot)).toBe(empty)
    await write("a.txt", "a\n")
    expect(await track(snapshot)).not.toBe(empty)
    await remove("a.txt")
    expect(await track(snapshot)).toBe(empty)
  })

  it("honours .gitignore: an ignored file is never in a patch or diff, and revert leaves it alone", async () => {
    const { snapshot, write, text } = await workspace()
    await write(".gitignore", "*.log\nbuild/\n")
    await write("app.log", "first\n")
    const before = await track(snapshot)
    await write("app.log", "second\n")
    await write("build/out.js", "out\n")
    await write("kept.txt", "kept\n")
    const patch = await snapshot.patch(before)
    expect(patch.files).toEqual(["kept.txt"])
    expect((await snapshot.diff(before)).map((change) => change.file)).toEqual(["kept.txt"])
    await snapshot.revert([{ hash: before, files: ["kept.txt"] }])
    expect(await text("app.log")).toBe("second\n")
  })

  it("leaves out untracked files over 2 MB and keeps a 1 MB one", async () => {
    const { snapshot, write } = await workspace()
    await write("grows.txt", "small\n")
    const before = await track(snapshot)
    await write("big.txt", "x".repeat(3 * 1024 * 1024))
    await write("medium.txt", "y".repeat(1024 * 1024))
    // A file already recorded stays recorded when it grows: only new large files are skipped.
    await write("grows.txt", "z".repeat(3 * 1024 * 1024))
    expect((await snapshot.patch(before)).files.sort()).toEqual(["grows.txt", "medium.txt"])
    const diff = await snapshot.diff(before)
    expect(diff.map((change) => change.file).sort()).toEqual(["grows.txt", "medium.txt"])
    expect(diff.find((change) => change.file === "medium.txt")?.after).toHaveLength(1024 * 1024)
  })

  it("shows a binary change in patch and diff with empty texts", async () => {
    const { snapshot, write } = await workspace()
    await write("image.bin", Buffer.from([0, 1, 2, 3, 0, 255]))
    const before = await track(snapshot)
    await write("image.bin", Buffer.from([0, 9, 9, 0, 254]))
    expect((await snapshot.patch(before)).files).toEqual(["image.bin"])
    expect(await snapshot.diff(before)).toEqual([
      { file: "image.bin", before: "", after: "", additions: 0, deletions: 0 },
    ])
  })

  it("shows a rename as the old path deleted and the new one added", async () => {
    const { snapshot, write, remove } = await workspace()
    await write("old.txt", "one\ntwo\n")
    const before = await track(snapshot)
    await remove("old.txt")
    await write("new.txt", "one\ntwo\n")
    expect((await snapshot.patch(before)).files.sort()).toEqual(["new.txt", "old.txt"])
    expect(await snapshot.diff(before)).toEqual([
      { file: "new.txt", before: "", after: "one\ntwo\n", additions: 2, deletions: 0 },
      { file: "old.txt", before: "one\ntwo\n", after: "", additions: 0, deletions: 2 },
    ])
  })

  it("handles names with spaces, quotes, newlines, glob characters and non-ASCII letters", async () => {
    const { snapshot, write, text } = await workspace()
    const names = [
      "dir with space/naïve 文件.txt",
      `quote"d 'name'.txt`,
      "line\nbreak.txt",
      "a*.txt",
      "ab.txt",
    ]
    for (const name of names) await write(name, `${name} before\n`)
    const before = await track(snapshot)
    for (const name of names) await write(name, `${name} after\n`)
    expect((await snapshot.patch(before)).files.sort()).toEqual([...names].sort())
    const diff = await snapshot.diff(before)
    expect(diff.find((change) => change.file === names[0])).toEqual({
      file: names[0],
      before: `${names[0]} before\n`,
      after: `${names[0]} after\n`,
      additions: 1,
      deletions: 1,
    })
    // `a*.txt` names that one file, not `ab.txt` too.
    await snapshot.revert([{ hash: before, files: ["a*.txt", names[0]!, "line\nbreak.txt"] }])
    expect(await text("a*.txt")).toBe("a*.txt before\n")
    expect(await text("ab.txt")).toBe("ab.txt after\n")
    expect(await text(names[0]!)).toBe(`${names[0]} before\n`)
    expect(await text("line\nbreak.txt")).toBe("line\nbreak.txt before\n")
  })

  it("counts the lines added and removed, between two states or up to now", async () => {
    const { snapshot, write, remove } = await workspace()
    const lines = Array.from({ length: 10 }, (_, index) => `line ${index + 1}`)
    await write("file.txt", `${lines.join("\n")}\n`)
    await write("gone.txt", "1\n2\n3\n")
    const before = await track(snapshot)
    const changed = [...lines]
    changed[1] = "line 2 changed"
    changed[4] = "line 5 changed"
    changed.splice(6, 1)
    changed.push("added 1", "added 2", "added 3")
    await write("file.txt", `${changed.join("\n")}\n`)
    await remove("gone.txt")
    await write("new.txt", "n1\nn2\n")
    const after = await track(snapshot)
    const expected = [
      {
        file: "file.txt",
        before: `${lines.join("\n")}\n`,
        after: `${changed.join("\n")}\n`,
        additions: 5,
        deletions: 3,
      },
      { file: "gone.txt", before: "1\n2\n3\n", after: "", additions: 0, deletions: 3 },
      { file: "new.txt", before: "", after: "n1\nn2\n", additions: 2, deletions: 0 },
    ]
    expect(await snapshot.diff(before, after)).toEqual(expected)
    expect(await snapshot.diff(before)).toEqual(expected)
    expect(await snapshot.diff(after, before)).toEqual(
      expected.map((change) => ({
        ...change,
        before: change.after,
        after: change.before,
        additions: change.deletions,
        deletions: change.additions,
      })),
    )
  })

  it("sees a change made in the same instant as the state it is compared with", async () => {
    const { snapshot, write } = await workspace()
    // Same size, written right after the index: only git's racy-entry check tells them apart.
    for (let round = 0; round < 5; round++) {
      await write("racy.txt", `aaaa${round}`)
      const before = await track(snapshot)
      await write("racy.txt", `bbbb${round}`)
      expect((await snapshot.patch(before)).files).toEqual(["racy.txt"])
    }
  })

  it("records a nested repository as nothing, even one without commits", async () => {
    const { snapshot, write, directory } = await workspace()
    const nested = new GitSnapshot({
      directory: path.join(directory, "nested"),
      dataDir: path.join(directory, "..", "n"),
    })
    await write("nested/.git/HEAD", "ref: refs/heads/main\n")
    await mkdir(path.join(directory, "nested/.git/objects"), { recursive: true })
    await mkdir(path.join(directory, "nested/.git/refs"), { recursive: true })
    await write("nested/inner.txt", "inner\n")
    await write("top.txt", "top\n")
    const before = await track(snapshot)
    await write("nested/inner.txt", "changed\n")
    expect((await snapshot.patch(before)).files).toEqual([])
    // The nested directory can have snapshots of its own.
    expect(await nested.track()).toMatch(/^[0-9a-f]{40}$/)
  })

  it("puts a file back byte for byte whatever the work tree's .gitattributes ask", async () => {
    const { snapshot, write, read } = await workspace()
    await write(".gitattributes", "* text eol=crlf\n*.txt ident\n")
    const original = Buffer.from("unix\nlines $Id$\n")
    await write("file.txt", original)
    const before = await track(snapshot)
    await write("file.txt", "changed\r\n")
    await snapshot.revert([{ hash: before, files: ["file.txt"] }])
    expect(await read("file.txt")).toEqual(original)
  })
})
