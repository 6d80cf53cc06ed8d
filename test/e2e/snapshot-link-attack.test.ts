import { lstat, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import type { MessageV2 } from "../../src/index.js"
import { GitSnapshot } from "../../src/snapshot/git/index.js"
import { createTestRuntime, say } from "../../src/testing/index.js"
import { codingTools } from "../../src/tools/index.js"

const cleanup: string[] = []
afterEach(async () => {
  for (const dir of cleanup.splice(0)) await rm(dir, { recursive: true, force: true })
})

/**
 * An agent's turns as an attacker makes them: turn 1 writes `sub/victim.txt`, turn 2's bash
 * swaps `sub` for a link to a folder outside the directory that holds a file of the same name.
 * A revert of turn 1 then deletes `sub/victim.txt`, which through the link is the outside file.
 */
async function attacked() {
  const root = await mkdtemp(join(tmpdir(), "agentloop-link-attack-"))
  cleanup.push(root)
  const directory = join(root, "work")
  const outside = join(root, "outside")
  await mkdir(directory)
  await mkdir(outside)
  await writeFile(join(outside, "victim.txt"), "the host's own file\n")
  const snapshot = new GitSnapshot({ directory, dataDir: join(root, "data") })
  const { runtime } = createTestRuntime({
    directory,
    tools: codingTools({ directory }),
    snapshot,
    permission: [{ permission: "*", pattern: "*", action: "allow" }],
    turns: [
      [say.toolCall("write", { filePath: "sub/victim.txt", content: "written in turn 1\n" })],
      [say.text("turn one done")],
      [say.toolCall("bash", { command: `rm -rf sub && ln -s '${outside}' sub`, description: "Swap sub" })],
      [say.text("turn two done")],
    ],
  })
  const { id: sessionID } = await runtime.session.create()
  const users: string[] = []
  for (const text of ["one", "two"]) {
    const answer = await runtime.session.prompt({ sessionID, parts: [{ type: "text", text }] })
    if (answer.info.role === "assistant") users.push(answer.info.parentID)
  }
  const outsideFile = () => readFile(join(outside, "victim.txt"), "utf8")
  return { runtime, snapshot, sessionID, users, directory, outside, outsideFile }
}

describe("revert, unrevert and restore after a folder was swapped for a link out of the directory", () => {
  it("never delete or write the outside file the link leads to", async () => {
    const { runtime, sessionID, users, directory, outside, outsideFile } = await attacked()
    expect((await lstat(join(directory, "sub"))).isSymbolicLink()).toBe(true)

    await runtime.session.revert({ sessionID, messageID: users[0]! })
    expect(await outsideFile()).toBe("the host's own file\n")
    // The link itself was recorded by turn 2, so reverting turn 1 takes it away too.
    await expect(lstat(join(directory, "sub"))).rejects.toMatchObject({ code: "ENOENT" })

    await runtime.session.unrevert({ sessionID })
    expect(await outsideFile()).toBe("the host's own file\n")
    expect((await lstat(join(directory, "sub"))).isSymbolicLink()).toBe(true)

    // Reverting turn 2 alone puts the folder back in place of the link, without writing through it.
    await runtime.session.revert({ sessionID, messageID: users[1]! })
    expect(await outsideFile()).toBe("the host's own file\n")
    expect((await lstat(join(directory, "sub"))).isDirectory()).toBe(true)
    expect(await readFile(join(directory, "sub", "victim.txt"), "utf8")).toBe("written in turn 1\n")
    await runtime.session.unrevert({ sessionID })
    expect(await outsideFile()).toBe("the host's own file\n")
    expect(await readFile(join(outside, "victim.txt"), "utf8")).toBe("the host's own file\n")
  }, 30_000)

  it("restore to the state before the swap puts a folder back and leaves the outside file alone", async () => {
    const { runtime, snapshot, sessionID, directory, outsideFile } = await attacked()
    const messages = await runtime.session.messages(sessionID)
    const finishes = messages
      .flatMap((message) => message.parts)
      .filter((part): part is MessageV2.StepFinishPart => part.type === "step-finish" && !!part.snapshot)
    // The first step's end: sub/victim.txt written, before the swap.
    await snapshot.restore(finishes[0]!.snapshot!)
    expect(await outsideFile()).toBe("the host's own file\n")
    expect((await lstat(join(directory, "sub"))).isDirectory()).toBe(true)
    expect(await readFile(join(directory, "sub", "victim.txt"), "utf8")).toBe("written in turn 1\n")
  }, 30_000)
})
