import {
  chmod,
  chown,
  cp,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  symlink,
  writeFile,
} from "node:fs/promises"
import os from "node:os"
import path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { GitSnapshot, SnapshotUnavailableError } from "../../../src/snapshot/git/index.js"

/**
 * A data dir inside the work tree, as docs/snapshot.md's example puts it, is written by the
 * agent's commands as any file there: each test plants what such a command could, then judges
 * on the host that the snapshot neither ran it nor wrote outside the directory.
 */

const NOBODY = 65534
const roots: string[] = []
const opened: GitSnapshot[] = []
afterEach(async () => {
  await Promise.all(opened.splice(0).map((snapshot) => snapshot.close()))
  await Promise.all(roots.splice(0).map((root) => rm(root, { recursive: true, force: true })))
})

async function workspace() {
  const root = await mkdtemp(path.join(os.tmpdir(), "agentloop-git-dir-"))
  roots.push(root)
  const directory = path.join(root, "work")
  const outside = path.join(root, "outside")
  const markers = path.join(root, "markers")
  await mkdir(directory)
  await mkdir(outside)
  await mkdir(markers)
  await writeFile(path.join(directory, "a.txt"), "one\n")
  const dataDir = path.join(directory, ".agentloop", "snapshot")
  const snapshot = new GitSnapshot({ directory, dataDir })
  opened.push(snapshot)
  const hash = (await snapshot.track())!
  expect(hash, snapshot.unavailableReason).toMatch(/^[0-9a-f]{40}$/)
  const [name] = await readdir(dataDir)
  const gitDir = path.join(dataDir, name!)
  /** A program that leaves a marker when run. */
  const program = async (marker: string) => {
    const file = path.join(root, `run-${marker}`)
    await writeFile(file, `#!/bin/sh\ntouch '${path.join(markers, marker)}'\n`)
    await chmod(file, 0o755)
    return file
  }
  const ran = () => readdir(markers)
  const listOutside = () => readdir(outside, { recursive: true })
  return { root, directory, outside, dataDir, gitDir, snapshot, hash, program, ran, listOutside }
}

describe("GitSnapshot's git dir, written by an agent's command", () => {
  it("runs no hook of a planted commondir, and removes it", async () => {
    const space = await workspace()
    const common = path.join(space.directory, "common")
    for (const entry of ["objects", "refs", "HEAD"])
      await cp(path.join(space.gitDir, entry), path.join(common, entry), { recursive: true })
    await mkdir(path.join(common, "hooks"))
    await cp(await space.program("common"), path.join(common, "hooks", "post-checkout"))
    await writeFile(
      path.join(common, "config"),
      `[core]\n\trepositoryformatversion = 0\n\tbare = true\n\thooksPath = ${path.join(common, "hooks")}\n`,
    )
    await writeFile(path.join(space.gitDir, "commondir"), `${common}\n`)
    await writeFile(path.join(space.directory, "a.txt"), "two\n")
    await space.snapshot.restore(space.hash)
    expect(await readFile(path.join(space.directory, "a.txt"), "utf8")).toBe("one\n")
    expect(await space.ran()).toEqual([])
    await expect(lstat(path.join(space.gitDir, "commondir"))).rejects.toMatchObject({ code: "ENOENT" })
  })

  it("rewrites a config that names programs to the settings it wrote", async () => {
    const space = await workspace()
    const hook = await space.program("hook")
    await writeFile(
      path.join(space.gitDir, "config"),
      `[core]\n\trepositoryformatversion = 0\n\tbare = true\n\thooksPath = ${path.dirname(hook)}\n` +
        `\tfsmonitor = ${hook}\n[include]\n\tpath = ${path.join(space.root, "more.cfg")}\n`,
    )
    await writeFile(path.join(space.directory, "a.txt"), "two\n")
    await space.snapshot.restore(space.hash)
    expect(await space.ran()).toEqual([])
    const config = await readFile(path.join(space.gitDir, "config"), "utf8")
    expect(config).not.toMatch(/hooksPath|fsmonitor|include/)
    expect(config).toMatch(/^\[core\]\n\trepositoryformatversion = 0\n/)
  })

  it("writes nothing outside through a link planted for info, objects or an object folder", async () => {
    const space = await workspace()
    await rm(path.join(space.gitDir, "info"), { recursive: true })
    await symlink(space.outside, path.join(space.gitDir, "info"))
    const objects = path.join(space.gitDir, "objects")
    // Every folder a new object could land in, but those holding the objects already written,
    // leads outside.
    for (let byte = 0; byte < 256; byte++) {
      const fanOut = path.join(objects, byte.toString(16).padStart(2, "0"))
      if (!(await lstat(fanOut).catch(() => undefined))) await symlink(space.outside, fanOut)
    }
    await writeFile(path.join(space.directory, "b.txt"), "new\n")
    const after = await space.snapshot.track()
    expect(after, space.snapshot.unavailableReason).toMatch(/^[0-9a-f]{40}$/)
    await writeFile(path.join(space.directory, "b.txt"), "changed\n")
    await space.snapshot.restore(after!)
    expect(await readFile(path.join(space.directory, "b.txt"), "utf8")).toBe("new\n")
    expect(await space.listOutside()).toEqual([])
    expect((await lstat(path.join(space.gitDir, "info"))).isDirectory()).toBe(true)
  })

  it("refuses a git dir swapped for a link, writing nothing where it leads", async () => {
    const space = await workspace()
    await cp(space.gitDir, path.join(space.outside, "copy"), { recursive: true })
    await rm(space.gitDir, { recursive: true })
    await symlink(path.join(space.outside, "copy"), space.gitDir)
    const before = await space.listOutside()
    await writeFile(path.join(space.directory, "b.txt"), "new\n")
    expect(await space.snapshot.track()).toBeUndefined()
    expect(space.snapshot.unavailableReason).toMatch(/moved or replaced by a link/)
    await expect(space.snapshot.restore(space.hash)).rejects.toSatisfy((error) =>
      SnapshotUnavailableError.isInstance(error),
    )
    expect(await space.listOutside()).toEqual(before)
  })

  it("refuses, in a new instance, a data dir inside the directory that leads out through a link", async () => {
    const space = await workspace()
    await rm(path.join(space.directory, ".agentloop"), { recursive: true })
    await symlink(space.outside, path.join(space.directory, ".agentloop"))
    const next = new GitSnapshot({ directory: space.directory, dataDir: space.dataDir })
    opened.push(next)
    expect(await next.track()).toBeUndefined()
    expect(next.unavailableReason).toMatch(/leads elsewhere through a link/)
    expect(await space.listOutside()).toEqual([])
  })
  it("works on a directory and a git dir another user owns, as root does with a sandbox's files", async () => {
    const space = await workspace()
    // As root (the case that matters: git refuses "dubious ownership" in some setups), hand every
    // file to nobody; as anyone else, the files stay theirs and the calls must work all the same.
    const owner = process.getuid?.() === 0 ? NOBODY : undefined
    const entries = await readdir(space.directory, { recursive: true })
    if (owner !== undefined)
      for (const entry of ["", ...entries]) await chown(path.join(space.directory, entry), owner, owner)
    await writeFile(path.join(space.directory, "a.txt"), "two\n")
    const patch = await space.snapshot.patch(space.hash)
    expect(patch.files).toEqual(["a.txt"])
    expect((await space.snapshot.diff(space.hash)).map((diff) => diff.after)).toEqual(["two\n"])
    await space.snapshot.revert([patch])
    expect(await readFile(path.join(space.directory, "a.txt"), "utf8")).toBe("one\n")
    expect(await space.snapshot.track()).toBe(space.hash)
  })
  it("gives what a revert or restore writes as root to the owner of the folder it lands in", async () => {
    const space = await workspace()
    const at = (file: string) => path.join(space.directory, file)
    await mkdir(at("gone/deep"), { recursive: true })
    await writeFile(at("gone/deep/y.txt"), "in folders that will go\n")
    const before = (await space.snapshot.track())!
    const owner = process.getuid?.() === 0 ? NOBODY : process.getuid!()
    for (const entry of ["", ...(await readdir(space.directory, { recursive: true }))])
      if (!entry.startsWith(".agentloop")) await chown(at(entry), owner, owner)
    await writeFile(at("a.txt"), "two\n")
    await rm(at("gone"), { recursive: true })
    const patch = await space.snapshot.patch(before)
    await space.snapshot.revert([patch])
    for (const file of ["a.txt", "gone", "gone/deep", "gone/deep/y.txt"])
      expect([file, (await lstat(at(file))).uid], file).toEqual([file, owner])
    await writeFile(at("a.txt"), "three\n")
    await rm(at("gone"), { recursive: true })
    await space.snapshot.restore(before)
    for (const file of ["a.txt", "gone", "gone/deep", "gone/deep/y.txt"])
      expect([file, (await lstat(at(file))).uid], file).toEqual([file, owner])
  })
})
