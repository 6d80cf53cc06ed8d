/**
 * File history: an agent writes and edits files with the coding tools while GitSnapshot records
 * each step; the session shows what each turn changed, reverts a turn (files and history), and
 * brings it back. Offline, with a scripted model. Run with `npx tsx examples/revert.ts`.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { GitSnapshot } from "agentloop-sdk/snapshot/git"
import { createTestRuntime, say } from "agentloop-sdk/testing"
import { codingPreset } from "agentloop-sdk/tools"

const directory = mkdtempSync(join(tmpdir(), "agentloop-revert-project-"))
const dataDir = mkdtempSync(join(tmpdir(), "agentloop-revert-snapshots-"))

// A scripted model stands in for a real one; createRuntime({ provider, ... }) takes the same options.
const { runtime } = createTestRuntime({
  ...codingPreset({ directory }),
  snapshot: new GitSnapshot({ directory, dataDir }),
  turns: [
    [say.toolCall("write", { filePath: "greet.ts", content: 'export const greet = () => "hello"\n' })],
    [say.text("Wrote greet.ts.")],
    [
      say.toolCall("edit", {
        filePath: "greet.ts",
        oldString: '"hello"',
        newString: '"hello, world"',
      }),
    ],
    [say.text("It now greets the world.")],
  ],
})

const session = await runtime.session.create({ title: "Greeter" })
const ask = (text: string) =>
  runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text }] })
const show = (label: string) =>
  console.log(`${label}: ${readFileSync(join(directory, "greet.ts"), "utf8").trim()}`)

await ask("Write a greeter.")
show("After turn 1")
const second = await ask("Make it greet the world.")
show("After turn 2")
// The user message that started turn 2.
const turn2 = second.info.role === "assistant" ? second.info.parentID : second.info.id

for (const diff of await runtime.session.diff({ sessionID: session.id, messageID: turn2 }))
  console.log(`Turn 2 changed ${diff.file}: +${diff.additions} -${diff.deletions}`)

const reverted = await runtime.session.revert({ sessionID: session.id, messageID: turn2 })
show("After revert to before turn 2")
console.log(`The session is reverted from ${reverted.revert?.messageID}`)

await runtime.session.unrevert({ sessionID: session.id })
show("After unrevert")

await runtime.close()
rmSync(directory, { recursive: true, force: true })
rmSync(dataDir, { recursive: true, force: true })
