import { execFile } from "node:child_process"
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { afterEach, describe, expect, it } from "vitest"
import { GitSnapshot } from "../../../src/snapshot/git/index.js"

const run = promisify(execFile)
const roots: string[] = []
afterEach(async () => {
  await Promise.all(roots.splice(0).map((root) => rm(root, { recursive: true, force: true })))
})

async function tempDirectory() {
  const root = await mkdtemp(path.join(os.tmpdir(), "agentloop-git-snapshot-race-"))
  roots.push(root)
  const directory = path.join(root, "work")
  await mkdir(directory)
  return { directory, dataDir: path.join(root, "data") }
}

describe("GitSnapshot under concurrency", () => {
  it("lets two instances on one directory track and patch at the same time, 20 rounds", async () => {
    const { directory, dataDir } = await tempDirectory()
    const first = new GitSnapshot({ directory, dataDir })
    const second = new GitSnapshot({ directory, dataDir })
    for (let round = 0; round < 20; round++) {
      await writeFile(path.join(directory, `before-${round}.txt`), `${round}\n`)
      const [hash, same] = await Promise.all([first.track(), second.track()])
      expect(hash, first.unavailableReason).toMatch(/^[0-9a-f]{40}$/)
      // The same contents give the same tree, whichever instance recorded it.
      expect(same, second.unavailableReason).toBe(hash)
      await writeFile(path.join(directory, `after-${round}.txt`), `${round}\n`)
      const patches = await Promise.all([first.patch(hash!), second.patch(hash!), first.track()])
      expect(patches[0].files).toEqual([`after-${round}.txt`])
      expect(patches[1].files).toEqual([`after-${round}.txt`])
    }
    // No private index is left behind.
    const [gitDir] = await readdir(dataDir)
    expect((await readdir(path.join(dataDir, gitDir!))).filter((name) => name.startsWith("index"))).toEqual([
      "index",
    ])
  }, 30_000)

  it("runs the calls made on one instance in the order they were made", async () => {
    const { directory, dataDir } = await tempDirectory()
    const snapshot = new GitSnapshot({ directory, dataDir })
    await writeFile(path.join(directory, "file.txt"), "first\n")
    const start = (await snapshot.track())!
    await writeFile(path.join(directory, "file.txt"), "second\n")
    const [changed, , restored] = await Promise.all([
      snapshot.track(),
      snapshot.restore(start),
      snapshot.track(),
    ])
    expect(changed).not.toBe(start)
    expect(restored).toBe(start)
  })

  it("lets two processes on one directory track and patch at the same time", {
    timeout: 30_000,
  }, async () => {
    const { directory, dataDir } = await tempDirectory()
    const module = fileURLToPath(new URL("../../../src/snapshot/git/index.ts", import.meta.url))
    const repositoryRoot = fileURLToPath(new URL("../../..", import.meta.url))
    const script = `
      import { writeFile } from "node:fs/promises"
      import { GitSnapshot } from ${JSON.stringify(module)}
      const [directory, dataDir, name] = process.argv.slice(1)
      const snapshot = new GitSnapshot({ directory, dataDir })
      for (let round = 0; round < 15; round++) {
        const hash = await snapshot.track()
        if (!hash) throw new Error(snapshot.unavailableReason)
        await writeFile(directory + "/" + name + "-" + round + ".txt", name)
        const { files } = await snapshot.patch(hash)
        if (!files.includes(name + "-" + round + ".txt")) throw new Error("missing own file: " + files)
      }
    `
    const child = (name: string) =>
      run(
        process.execPath,
        ["--import", "tsx", "--input-type=module", "-e", script, directory, dataDir, name],
        {
          cwd: repositoryRoot,
          timeout: 25_000,
        },
      )
    await Promise.all([child("one"), child("two")])
    const snapshot = new GitSnapshot({ directory, dataDir })
    const hash = (await snapshot.track())!
    expect((await snapshot.diff("4b825dc642cb6eb9a060e54bf8d69288fbee4904", hash)).length).toBe(30)
  })
})
