import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { GitSnapshot } from "../../src/snapshot/git/index.js"
import { createTestRuntime, say } from "../../src/testing/index.js"
import { codingTools } from "../../src/tools/index.js"

const cleanup: string[] = []
afterEach(async () => {
  for (const dir of cleanup.splice(0)) await rm(dir, { recursive: true, force: true })
})

/**
 * The commands an agent's bash runs to plant programs in the snapshot's git dir, which sits in
 * the work tree as docs/snapshot.md's own example puts it: hooks, config naming programs (and
 * an included config), and attributes that reach them.
 */
function plant(evil: string): string {
  const config = (key: string, value: string) => `git config --file "$G/config" ${key} '${value}'`
  return [
    "set -e",
    "G=$(echo .agentloop/snapshot/*/)",
    'mkdir -p "$G/hooks" "$G/info"',
    ...["post-checkout", "pre-auto-gc", "post-index-change", "reference-transaction"].map(
      (name) => `printf '#!/bin/sh\\n${evil} hook\\n' > "$G/hooks/${name}" && chmod +x "$G/hooks/${name}"`,
    ),
    'mkdir -p planted && cp "$G"hooks/* planted/',
    `sed -i 's/ hook$/ hooks-path/' planted/*`,
    config("core.hooksPath", "$PWD/planted").replace("'$PWD/planted'", '"$PWD/planted"'),
    config("core.fsmonitor", `${evil} fsmonitor`),
    config("filter.x.clean", `${evil} clean`),
    config("filter.x.smudge", `${evil} smudge`),
    config("filter.y.process", `${evil} process`),
    config("diff.x.textconv", `${evil} textconv`),
    config("diff.external", `${evil} external`),
    config("core.pager", `${evil} pager`),
    config("gc.auto", "1"),
    config("core.attributesFile", "$G/info/attributes"),
    `printf '[filter "x"]\\n\\tclean = ${evil} include\\n' > included.cfg`,
    config("include.path", "$PWD/included.cfg").replace("'$PWD/included.cfg'", '"$PWD/included.cfg"'),
    `printf '* filter=x diff=x text eol=crlf\\n*.y filter=y\\n' > "$G/info/attributes"`,
    `printf '* filter=x diff=x\\n*.y filter=y\\n' > .gitattributes`,
    "echo changed > a.txt && echo y > b.y",
  ].join("\n")
}

describe("a git dir an agent's command planted programs in", () => {
  it("runs none of them in track, diff, revert, unrevert or restore", async () => {
    const root = await mkdtemp(join(tmpdir(), "agentloop-git-dir-attack-"))
    cleanup.push(root)
    const directory = join(root, "work")
    const markers = join(root, "markers")
    await mkdir(directory)
    await mkdir(markers)
    // The program every planted setting names: it leaves a marker named after its first argument.
    const evil = join(root, "evil.sh")
    // A filter passes its input on; the others need no input (the process filter's handshake
    // gets none, so git gives up on it at once).
    await writeFile(
      evil,
      `#!/bin/sh\ntouch '${markers}'/"$1"\ncase "$1" in clean|smudge|include) cat ;; esac\n`,
    )
    await chmod(evil, 0o755)
    const dataDir = join(directory, ".agentloop", "snapshot")
    const snapshot = new GitSnapshot({ directory, dataDir })
    const { runtime } = createTestRuntime({
      directory,
      tools: codingTools({ directory }),
      snapshot,
      permission: [{ permission: "*", pattern: "*", action: "allow" }],
      turns: [
        [say.toolCall("write", { filePath: "a.txt", content: "turn 1\n" })],
        [say.text("turn one done")],
        [say.toolCall("bash", { command: plant(evil), description: "Plant" })],
        [say.text("turn two done")],
        [say.toolCall("write", { filePath: "c.y", content: "turn 3\n" })],
        [say.text("turn three done")],
      ],
    })
    const { id: sessionID } = await runtime.session.create()
    const users: string[] = []
    // Judged by the markers first: a failing call must not hide a program that ran.
    const outcome = await (async () => {
      for (const text of ["one", "two", "three"]) {
        const answer = await runtime.session.prompt({ sessionID, parts: [{ type: "text", text }] })
        expect(answer.text).toMatch(/done/)
        if (answer.info.role === "assistant") users.push(answer.info.parentID)
      }
      await runtime.session.diff({ sessionID })
      await runtime.session.revert({ sessionID, messageID: users[0]! })
      await runtime.session.unrevert({ sessionID })
      await runtime.session.revert({ sessionID, messageID: users[1]! })
      await runtime.session.unrevert({ sessionID })
      const hash = await snapshot.track()
      expect(hash, snapshot.unavailableReason).toBeDefined()
      await snapshot.diff(hash!)
      await snapshot.restore(hash!)
    })().then(
      () => "ok",
      (error: unknown) => error,
    )
    expect(await readdir(markers)).toEqual([])
    expect(outcome).toBe("ok")
    // What the agent wrote in the work tree is recorded as any file is.
    const files = (await runtime.session.diff({ sessionID })).map((diff) => diff.file)
    expect(files).toEqual(expect.arrayContaining(["planted/post-checkout", ".gitattributes", "b.y", "c.y"]))
    await snapshot.close()
    expect(await readdir(markers)).toEqual([])
  }, 60_000)
})
