/**
 * A coding CLI: a coding agent runs one prompt in a directory, shows what the turn changed, and
 * reverts the files when you answer no. Sessions and file history live in <directory>/.agentloop.
 * The agent knows the project as OpenCode would: its AGENTS.md is in the system prompt, its Agent
 * Skills are a `skill` tool away, and its markdown agents and commands are loaded. Without a
 * directory it works on a small demo project with an AGENTS.md and a skill. Offline a scripted
 * model loads the skill and edits the demo's greet.ts; set ANTHROPIC_API_KEY, OPENAI_API_KEY or
 * AGENTLOOP_BASE_URL for a real model.
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
import { type CallOptions, say } from "agentloop-sdk/testing"
import { loadCodingPreset } from "agentloop-sdk/tools"
import { chooseModel } from "./choose-model.js"

const [directory = demoProject(), prompt = "Make greet() greet the world."] = process.argv.slice(2)
const data = join(directory, ".agentloop")
mkdirSync(data, { recursive: true })
const database = join(data, "sessions.db")
const { label, language, info } = chooseModel([
  [say.toolCall("skill", { name: "greeting-style" })],
  [say.toolCall("read", { filePath: "greet.ts" }), say.usage({ input: 4_000, output: 30 })],
  [say.toolCall("edit", { filePath: "greet.ts", oldString: '"hello"', newString: '"hello, world"' })],
  // The scripted answer says whether the project's AGENTS.md reached the system prompt.
  (call) => [
    say.text(`greet() now returns "hello, world".${followed(call)}`),
    say.usage({ input: 4_200, output: 20 }),
  ],
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
  // The coding tools and agents, AGENTS.md, the skills, and .opencode/ agents and commands.
  ...(await loadCodingPreset({ directory })),
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
  writeFileSync(join(project, "AGENTS.md"), "# Demo project\n\nGreetings name whom they greet.\n")
  const skill = join(project, ".agents", "skills", "greeting-style")
  mkdirSync(skill, { recursive: true })
  const front = "---\nname: greeting-style\ndescription: How this project words its greetings\n---\n"
  writeFileSync(join(skill, "SKILL.md"), `${front}\nA greeting is lower case and names whom it greets.\n`)
  return project
}

function followed(call: CallOptions): string {
  const system = call.prompt.flatMap((message) => (message.role === "system" ? [message.content] : []))
  return system.join("\n").includes("Greetings name whom they greet.") ? " (as AGENTS.md asks)" : ""
}
