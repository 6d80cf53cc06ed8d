import { mkdtemp, readdir, readFile, rm, unlink, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { z } from "zod"
import { type MessageV2, Tool } from "../../src/index.js"
import { GitSnapshot } from "../../src/snapshot/git/index.js"
import { createTestRuntime, say } from "../../src/testing/index.js"

const cleanup: string[] = []
afterEach(async () => {
  for (const dir of cleanup.splice(0)) await rm(dir, { recursive: true, force: true })
})

/** Tools that change real files in `directory`. */
function fileTools(directory: string) {
  const write = Tool.define("write", {
    description: "Writes a file (base64 when binary)",
    parameters: z.object({ path: z.string(), content: z.string(), base64: z.boolean().optional() }),
    async execute({ path, content, base64 }) {
      const { mkdir } = await import("node:fs/promises")
      await mkdir(dirname(join(directory, path)), { recursive: true })
      await writeFile(join(directory, path), base64 ? Buffer.from(content, "base64") : content)
      return { title: path, output: "written", metadata: {} }
    },
  })
  const remove = Tool.define("remove", {
    description: "Deletes a file",
    parameters: z.object({ path: z.string() }),
    async execute({ path }) {
      await unlink(join(directory, path))
      return { title: path, output: "removed", metadata: {} }
    },
  })
  return [write, remove]
}

/** Every file under the directory, byte for byte. */
async function tree(directory: string): Promise<Record<string, string>> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true })
  const files: Record<string, string> = {}
  for (const entry of entries)
    if (entry.isFile()) {
      const path = join(entry.parentPath, entry.name)
      files[path.slice(directory.length + 1)] = (await readFile(path)).toString("base64")
    }
  return files
}

const binary = Buffer.from([0, 1, 2, 255, 254, 0, 10, 13]).toString("base64")

describe("snapshots and revert on a real directory with git", () => {
  it("reverts to turn 2 byte for byte, unreverts turn 3, and a new prompt after a revert drops turn 3", async () => {
    const directory = await mkdtemp(join(tmpdir(), "agentloop-work-"))
    const dataDir = await mkdtemp(join(tmpdir(), "agentloop-snapshots-"))
    cleanup.push(directory, dataDir)
    await writeFile(join(directory, "keep.txt"), "untouched\n")
    const { runtime, model } = createTestRuntime({
      directory,
      tools: fileTools(directory),
      snapshot: new GitSnapshot({ directory, dataDir }),
      turns: [
        [
          say.toolCall("write", { path: "a.txt", content: "one\n" }),
          say.toolCall("write", { path: "bin.dat", content: binary, base64: true }),
        ],
        [say.text("turn one done")],
        [
          say.toolCall("write", { path: "a.txt", content: "one\ntwo\n" }),
          say.toolCall("write", { path: "dir with space/naïve 文件.txt", content: "héllo\n" }),
        ],
        [say.text("turn two done")],
        [
          say.toolCall("write", { path: "a.txt", content: "three\n" }),
          say.toolCall("remove", { path: "bin.dat" }),
          say.toolCall("write", { path: "c.txt", content: "new in three\n" }),
        ],
        [say.text("turn three done")],
        [say.text("a different turn three")],
      ],
    })
    const session = await runtime.session.create({ title: "files" })
    const ask = (text: string) =>
      runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text }] })
    const states: Record<string, string>[] = []
    for (const text of ["first", "second", "third"]) {
      await ask(text)
      states.push(await tree(directory))
    }
    const messages = await runtime.session.messages(session.id)
    const users = messages.filter((message) => message.info.role === "user")
    const patches = messages.flatMap((message) => message.parts).filter((part) => part.type === "patch")
    expect(patches.map((part) => (part as MessageV2.PatchPart).files)).toEqual([
      ["a.txt", "bin.dat"],
      ["a.txt", "dir with space/naïve 文件.txt"],
      ["a.txt", "bin.dat", "c.txt"],
    ])
    expect((users[1]!.info as MessageV2.User).summary?.diffs).toEqual([
      { file: "a.txt", before: "one\n", after: "one\ntwo\n", additions: 1, deletions: 0 },
      { file: "dir with space/naïve 文件.txt", before: "", after: "héllo\n", additions: 1, deletions: 0 },
    ])

    const reverted = await runtime.session.revert({ sessionID: session.id, messageID: users[2]!.info.id })
    expect(await tree(directory)).toEqual(states[1])
    expect(reverted.revert?.diff).toContain("-new in three")

    await runtime.session.unrevert({ sessionID: session.id })
    expect(await tree(directory)).toEqual(states[2])

    await runtime.session.revert({ sessionID: session.id, messageID: users[2]!.info.id })
    expect(await tree(directory)).toEqual(states[1])
    await ask("something else")
    const texts = (await runtime.session.messages(session.id)).flatMap((message) =>
      message.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])),
    )
    expect(texts).toEqual([
      "first",
      "turn one done",
      "second",
      "turn two done",
      "something else",
      "a different turn three",
    ])
    expect(JSON.stringify(model.calls.at(-1)!.prompt)).not.toContain("third")
    expect(await tree(directory)).toEqual(states[1])
    expect((await tree(directory))["keep.txt"]).toBe(Buffer.from("untouched\n").toString("base64"))
  })
})
