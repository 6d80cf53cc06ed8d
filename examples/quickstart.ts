/**
 * agentloop end to end: an agent lists files (asking permission), asks the user a question,
 * and answers, on a real SQLite file. Runs offline with a scripted model; set OPENAI_API_KEY,
 * ANTHROPIC_API_KEY, or AGENTLOOP_BASE_URL (an OpenAI-compatible server) to use a real model.
 *
 *   npm run demo
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createProvider, createRuntime, MessageV2, Tool } from "agentloop-sdk"
import { SqliteStorage } from "agentloop-sdk/storage/sqlite"
import { say, type Turn } from "agentloop-sdk/testing"
import { z } from "zod"
import { chooseModel } from "./choose-model.js"

const directory = mkdtempSync(join(tmpdir(), "agentloop-quickstart-"))
writeFileSync(join(directory, "README.md"), "# Demo project\nA tiny project for the agentloop quickstart.\n")
writeFileSync(join(directory, "package.json"), '{ "name": "demo", "version": "1.0.0" }\n')

/** The story the scripted model plays when no real model is configured. */
const SCRIPT: Turn[] = [
  [
    say.text("Let me look at the project files first.", { chunks: 6 }),
    say.toolCall("list_files", { directory: "." }),
    say.usage({ input: 1_200, output: 40 }),
  ],
  [
    say.toolCall("question", {
      questions: [
        {
          question: "Which file should I summarise?",
          header: "File",
          options: [
            { label: "README.md", description: "The project's readme" },
            { label: "package.json", description: "The package manifest" },
          ],
        },
      ],
    }),
    say.usage({ input: 1_350, output: 60 }),
  ],
  [
    say.text("README.md says this is a tiny demo project made for the agentloop quickstart.", {
      chunks: 12,
    }),
    say.usage({ input: 1_500, output: 30 }),
  ],
]

const listFiles = Tool.define("list_files", {
  description: "List the files of a directory of the project",
  parameters: z.object({ directory: z.string().describe("A path relative to the project root") }),
  async execute(args, context) {
    await context.ask({ permission: "list", patterns: [args.directory], always: ["*"] })
    const files = readdirSync(join(directory, args.directory))
    return { title: args.directory, output: files.join("\n"), metadata: { count: files.length } }
  },
})

const { label, ...model } = chooseModel(SCRIPT)
console.log(`Model: ${label}\n`)

const runtime = createRuntime({
  provider: createProvider({
    models: [model],
    default: { providerID: "demo", modelID: "demo" },
  }),
  storage: new SqliteStorage(join(directory, "sessions.db")),
  directory,
  tools: [listFiles],
  permission: [{ permission: "list", pattern: "*", action: "ask" }],
  askTimeoutMs: 60_000,
  // The human in the loop, answered by code here: a UI would show these and wait.
  onPermission: async (request) => {
    console.log(`\n[permission] ${request.permission} ${request.patterns.join(", ")} -> allowed once`)
    return "once"
  },
  onQuestion: async (request) => {
    const answers = request.questions.map((question) => [question.options[0]?.label ?? "yes"])
    console.log(
      `\n[question] ${request.questions.map((question) => question.question).join(" / ")} -> ${answers.flat().join(", ")}`,
    )
    return answers
  },
})

runtime.events.on("message.part.delta", (event) => {
  process.stdout.write(event.properties.delta)
})
runtime.events.on("message.part.updated", (event) => {
  const { part } = event.properties
  if (part.type === "tool" && (part.state.status === "completed" || part.state.status === "error"))
    console.log(`\n[tool] ${part.tool} ${part.state.status}`)
})
runtime.events.on("session.status", (event) => console.log(`\n[status] ${event.properties.status.type}`))

const session = await runtime.session.create({ title: "Quickstart" })
const prompt = "Look at the project and summarise the file I choose."
console.log(`[user] ${prompt}\n`)
// A failed turn (a wrong API key, a provider error) resolves with info.error set; throwIfFailed throws it.
const answer = MessageV2.throwIfFailed(
  await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: prompt }] }),
)
const answerText = answer.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("")
console.log(`\n\nFinal answer (finish: ${answer.info.finish}):\n${answerText}`)

console.log("\nStored session:")
for (const { info, parts } of await runtime.session.messages(session.id)) {
  const summary = parts
    .map((part) =>
      part.type === "text"
        ? `text(${part.text.length} chars)`
        : part.type === "tool"
          ? `tool:${part.tool}`
          : part.type,
    )
    .join(", ")
  console.log(`- ${info.role}: ${summary}`)
}
const stored = await runtime.session.get(session.id)
console.log(`Cost: $${stored.cost.toFixed(6)}, tokens in/out: ${stored.tokens.input}/${stored.tokens.output}`)
await runtime.close()
rmSync(directory, { recursive: true, force: true })
