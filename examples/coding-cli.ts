/**
 * A coding CLI: a coding agent runs one prompt in a directory, shows what the turn changed, and
 * reverts the files when you answer no. Sessions and file history live in <directory>/.agentloop.
 * Without a directory it works on a small demo project. Offline a scripted model edits the demo's
 * greet.ts; set ANTHROPIC_API_KEY, OPENAI_API_KEY or AGENTLOOP_BASE_URL for a real model.
 *
 *   npx tsx examples/coding-cli.ts [directory] [prompt]
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline/promises"
import { createRuntime } from "agentloop-sdk"
import { GitSnapshot } from "agentloop-sdk/snapshot/git"
import { SqliteStorage } from "agentloop-sdk/storage/sqlite"
import { say } from "agentloop-sdk/testing"
import { codingPreset } from "agentloop-sdk/tools"
import { chooseModel } from "./choose-model.js"

const [directory = demoProject(), prompt = "Make greet() greet the world."] = process.argv.slice(2)
const data = join(directory, ".agentloop")
mkdirSync(data, { recursive: true })
const database = join(data, "sessions.db")
const { label, language, info } = chooseModel([
  [say.toolCall("read", { filePath: "greet.ts" }), say.usage({ input: 4_000, output: 30 })],
  [say.toolCall("edit", { filePath: "greet.ts", oldString: '"hello"', newString: '"hello, world"' })],
  [say.text('greet() now returns "hello, world".'), say.usage({ input: 4_200, output: 20 })],
])
console.log(`Model: ${label}\nDirectory: ${directory}\n`)

// Lines typed or piped in; read as an iterator, so none is lost before its question is asked.
const terminal = createInterface({ input: process.stdin })
const lines = terminal[Symbol.asyncIterator]()
const ask = async (question: string) => {
  process.stdout.write(question)
  return ((await lines.next()).value ?? "").trim()
}
const runtime = createRuntime({
  model: { language, info },
  ...codingPreset({ directory }),
  storage: new SqliteStorage(database),
  // The snapshots' own data dir is left out by itself; the database, inside the tree, by exclude.
  snapshot: new GitSnapshot({ directory, dataDir: join(data, "snapshot"), exclude: [database] }),
  onPermission: async ({ permission, patterns }) =>
    (await ask(`Allow ${permission} ${patterns.join(", ")}? [y/N] `)) === "y" ? "once" : "reject",
})

const { id: sessionID } = await runtime.session.create({ title: prompt })
const turn = await runtime.session.prompt({ sessionID, parts: [{ type: "text", text: prompt }] })
for (const call of turn.toolCalls)
  console.log(`[${call.tool}] ${call.state.status === "completed" ? call.state.title : call.state.status}`)
console.log(`\n${turn.text || turn.finish.reason} ($${turn.usage.cost.toFixed(4)})\n`)

const messageID = turn.user!.info.id // the prompt's own message: reverting to it undoes the whole turn
const diffs = await runtime.session.diff({ sessionID, messageID })
for (const diff of diffs) console.log(`${diff.file}: +${diff.additions} -${diff.deletions}`)
if (diffs.length > 0 && (await ask("Keep these changes? [Y/n] ")) === "n") {
  await runtime.session.revert({ sessionID, messageID })
  const contents = (file: string) =>
    existsSync(join(directory, file)) ? readFileSync(join(directory, file), "utf8") : ""
  for (const diff of diffs)
    console.log(`${diff.file} is back as before: ${contents(diff.file) === diff.before}`)
}
terminal.close()
await runtime.close()
if (!process.argv[2]) rmSync(directory, { recursive: true, force: true })

function demoProject() {
  const project = mkdtempSync(join(tmpdir(), "agentloop-coding-"))
  writeFileSync(join(project, "greet.ts"), 'export const greet = () => "hello"\n')
  return project
}
