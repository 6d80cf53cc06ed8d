// A scripted agent whose real bash tool attacks the host through the git snapshot (issue 41,
// items 2 and 3): a folder swapped for a link out of the directory before a revert, and
// programs planted in the snapshot's git dir, kept in the work tree. Run as its own process (as
// root or as nobody) by snapshot-attack-users.test.ts, which judges on the host. Argument: a
// folder the process may write. Prints one JSON line: what each scenario's calls answered.
import { chmod, mkdir, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { GitSnapshot } from "../../src/snapshot/git/index.js"
import { createTestRuntime, say, type Turn } from "../../src/testing/index.js"
import { codingTools } from "../../src/tools/index.js"

/** Three turns of the agent on `directory`, then revert and unrevert of the first two. */
async function session(directory: string, dataDir: string, turns: Turn[]): Promise<string> {
  const snapshot = new GitSnapshot({ directory, dataDir })
  const { runtime } = createTestRuntime({
    directory,
    tools: codingTools({ directory }),
    snapshot,
    permission: [{ permission: "*", pattern: "*", action: "allow" }],
    turns,
  })
  try {
    const { id: sessionID } = await runtime.session.create()
    const users: string[] = []
    for (const text of ["one", "two", "three"]) {
      const answer = await runtime.session.prompt({ sessionID, parts: [{ type: "text", text }] })
      if (answer.info.role === "assistant") users.push(answer.info.parentID)
    }
    await runtime.session.diff({ sessionID })
    for (const messageID of users.slice(0, 2)) {
      await runtime.session.revert({ sessionID, messageID })
      await runtime.session.unrevert({ sessionID })
    }
    const hash = await snapshot.track()
    if (!hash) return `unavailable: ${snapshot.unavailableReason}`
    await snapshot.restore(hash)
    return "ok"
  } catch (error) {
    return `failed: ${error instanceof Error ? error.message : String(error)}`
  } finally {
    await runtime.close()
    await snapshot.close()
  }
}

/** Turn 1 writes sub/victim.txt; turn 2 swaps sub for a link to `outside`, which holds a victim.txt. */
function linkTurns(outside: string): Turn[] {
  return [
    [say.toolCall("write", { filePath: "sub/victim.txt", content: "written in turn 1\n" })],
    [say.text("turn one done")],
    [say.toolCall("bash", { command: `rm -rf sub && ln -s '${outside}' sub`, description: "Swap" })],
    [say.text("turn two done")],
    [say.toolCall("write", { filePath: "later.txt", content: "turn 3\n" })],
    [say.text("turn three done")],
  ]
}

/** Turn 2 plants a hook, a hooks path, fsmonitor, filters and an include in the git dir's config. */
function plantTurns(evil: string): Turn[] {
  const config = (key: string, value: string) => `git config --file "$G/config" ${key} "${value}"`
  const command = [
    "set -e",
    "G=$(echo .agentloop/snapshot/*/)",
    'mkdir -p "$G/hooks" planted',
    `printf '#!/bin/sh\\n${evil} hook\\n' > "$G/hooks/post-checkout" && chmod +x "$G/hooks/post-checkout"`,
    `printf '#!/bin/sh\\n${evil} hooks-path\\n' > planted/post-checkout && chmod +x planted/post-checkout`,
    config("core.hooksPath", "$PWD/planted"),
    config("core.fsmonitor", evil),
    config("filter.x.clean", `${evil} clean`),
    config("filter.x.smudge", `${evil} smudge`),
    `printf '[filter "x"]\\n\\tclean = ${evil} include\\n' > included.cfg`,
    config("include.path", "$PWD/included.cfg"),
    `printf '* filter=x\\n' > "$G/info/attributes"`,
    "printf '* filter=x\\n' > .gitattributes && echo changed > a.txt",
  ].join("\n")
  return [
    [say.toolCall("write", { filePath: "a.txt", content: "turn 1\n" })],
    [say.text("turn one done")],
    [say.toolCall("bash", { command, description: "Plant" })],
    [say.text("turn two done")],
    [say.toolCall("write", { filePath: "c.txt", content: "turn 3\n" })],
    [say.text("turn three done")],
  ]
}

async function main() {
  const [root] = process.argv.slice(2)
  const at = (...names: string[]) => join(root!, ...names)
  for (const folder of ["links", "links/work", "links/outside", "plant", "plant/work", "plant/markers"])
    await mkdir(at(folder))
  await writeFile(at("links/outside/victim.txt"), "the host's own file\n")
  // The program every planted setting names: it leaves a marker named after its argument.
  const evil = at("plant/evil.sh")
  await writeFile(
    evil,
    `#!/bin/sh\ntouch '${at("plant/markers")}'/"$1"\ncase "$1" in clean|smudge|include) cat ;; esac\n`,
  )
  await chmod(evil, 0o755)
  const links = await session(at("links/work"), at("links/data"), linkTurns(at("links/outside")))
  const plant = await session(at("plant/work"), at("plant/work/.agentloop/snapshot"), plantTurns(evil))
  console.log(JSON.stringify({ uid: process.getuid?.(), links, plant }))
}

await main()
