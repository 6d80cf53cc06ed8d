import {
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  unlink,
  utimes,
  writeFile,
} from "node:fs/promises"
import os from "node:os"
import path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { GitSnapshot } from "../../../src/snapshot/git/index.js"
import { planRevert } from "../../../src/snapshot/git/revert-plan.js"
import type { Snapshot } from "../../../src/snapshot/port.js"

const roots: string[] = []
afterEach(async () => {
  await Promise.all(roots.splice(0).map((root) => rm(root, { recursive: true, force: true })))
})

const A0 = Buffer.from("a, as the user left it\r\nwith CRLF\r\n")
const A1 = Buffer.from("a after step 1\n")
const A2 = Buffer.from("a after step 2\n")
const B0 = Buffer.from("b original\n")
const D0 = Buffer.from([0, 1, 2, 0xff, 0xfe, 0, 10, 13])

/**
 * Two model steps, each recorded as a session would: track at its start, patch at its end.
 * Step 1 edits `a` and creates `c`; step 2 edits `a` and `b`, deletes `d` and creates `e/f`.
 */
async function twoSteps() {
  const root = await mkdtemp(path.join(os.tmpdir(), "agentloop-git-snapshot-revert-"))
  roots.push(root)
  const directory = path.join(root, "work")
  const at = (file: string) => path.join(directory, file)
  await mkdir(path.join(directory, "sub"), { recursive: true })
  await writeFile(at("a.txt"), A0)
  await writeFile(at("b.txt"), B0)
  await writeFile(at("same.txt"), "never changed\n")
  await writeFile(at("sub/d.bin"), D0)
  const snapshot = new GitSnapshot({ directory, dataDir: path.join(root, "data") })

  const start1 = (await snapshot.track())!
  await writeFile(at("a.txt"), A1)
  await writeFile(at("c.txt"), "created in step 1\n")
  const step1 = await snapshot.patch(start1)

  const start2 = (await snapshot.track())!
  await writeFile(at("a.txt"), A2)
  await writeFile(at("b.txt"), "b after step 2\n")
  await unlink(at("sub/d.bin"))
  await mkdir(at("e"))
  await writeFile(at("e/f.txt"), "created in step 2\n")
  const step2 = await snapshot.patch(start2)
  const end = (await snapshot.track())!

  const files = async () =>
    (await readdir(directory, { recursive: true })).map((file) => file.split(path.sep).join("/")).sort()
  return { snapshot, directory, step1, step2, end, read: (file: string) => readFile(at(file)), files }
}

describe("GitSnapshot.revert", () => {
  it("puts every file of the patches back byte for byte, the first patch naming a file winning", async () => {
    const { snapshot, step1, step2, read, files } = await twoSteps()
    expect(step1.files.sort()).toEqual(["a.txt", "c.txt"])
    expect(step2.files.sort()).toEqual(["a.txt", "b.txt", "e/f.txt", "sub/d.bin"])

    await snapshot.revert([step1, step2])

    expect(await read("a.txt")).toEqual(A0)
    expect(await read("b.txt")).toEqual(B0)
    expect(await read("sub/d.bin")).toEqual(D0)
    // Created files are deleted; the directory that held one stays, empty.
    expect(await files()).toEqual(["a.txt", "b.txt", "e", "same.txt", "sub", "sub/d.bin"])
  })

  it("with the later patch first, takes its state for the files both name", async () => {
    const { snapshot, step1, step2, read, files } = await twoSteps()
    await snapshot.revert([step2, step1])
    expect(await read("a.txt")).toEqual(A1)
    expect(await read("b.txt")).toEqual(B0)
    expect((await files()).includes("c.txt")).toBe(false)
  })

  it("undoes a revert with restore of the state recorded after the steps", async () => {
    const { snapshot, step1, step2, end, read } = await twoSteps()
    await snapshot.revert([step1, step2])
    await snapshot.restore(end)
    expect(await read("a.txt")).toEqual(A2)
    expect(await read("e/f.txt")).toEqual(Buffer.from("created in step 2\n"))
    expect(await read("c.txt")).toEqual(Buffer.from("created in step 1\n"))
    expect(await read("b.txt")).toEqual(Buffer.from("b after step 2\n"))
    // d.bin did not exist at the end: restore leaves the reverted copy alone.
    expect(await read("sub/d.bin")).toEqual(D0)
    expect(await snapshot.track()).not.toBe(end)
  })

  it("restore rewrites only the files that differ from the state", async () => {
    const { snapshot, step1, read, directory } = await twoSteps()
    const old = new Date("2020-01-01T00:00:00Z")
    await utimes(path.join(directory, "same.txt"), old, old)
    await snapshot.restore(step1.hash)
    expect(await read("a.txt")).toEqual(A0)
    expect(await read("sub/d.bin")).toEqual(D0)
    expect((await stat(path.join(directory, "same.txt"))).mtime).toEqual(old)
  })

  it("leaves a file under a folder since swapped for a link alone, even a link back inside", async () => {
    const { snapshot, step2, directory, read } = await twoSteps()
    // e/ held a file step 2 created; now a link to another folder holding a file of that name.
    await mkdir(path.join(directory, "keep"))
    await writeFile(path.join(directory, "keep", "f.txt"), "not step 2's\n")
    await rm(path.join(directory, "e"), { recursive: true })
    await symlink("keep", path.join(directory, "e"))
    await snapshot.revert([step2])
    expect(await read("keep/f.txt")).toEqual(Buffer.from("not step 2's\n"))
    // The link is no recorded patch's: it stays, and the other files went back.
    expect((await lstat(path.join(directory, "e"))).isSymbolicLink()).toBe(true)
    expect(await read("a.txt")).toEqual(A1)
  })

  it("does nothing for no patches, and tolerates files already gone", async () => {
    const { snapshot, step1, read } = await twoSteps()
    await snapshot.revert([])
    await snapshot.revert([{ hash: step1.hash, files: ["never-existed.txt", "c.txt"] }])
    await snapshot.revert([{ hash: step1.hash, files: ["c.txt"] }])
    expect(await read("a.txt")).toEqual(A2)
  })
})

describe("planRevert", () => {
  it("groups files by the hash of the first patch naming them", () => {
    const patches: Snapshot.Patch[] = [
      { hash: "h1", files: ["a", "b"] },
      { hash: "h2", files: ["b", "c"] },
      { hash: "h1", files: ["d"] },
      { hash: "h3", files: ["a"] },
    ]
    expect([...planRevert(patches)]).toEqual([
      ["h1", ["a", "b", "d"]],
      ["h2", ["c"]],
    ])
  })
})
