/**
 * A terminal chat with a coding agent in a directory: streamed answers, permission prompts and
 * questions answered at the keyboard, `/compact` to summarise the session, Ctrl-C to cancel the
 * turn (Ctrl-C again, or Ctrl-D, to leave). Offline with a scripted model; set ANTHROPIC_API_KEY,
 * OPENAI_API_KEY or AGENTLOOP_BASE_URL for a real one.
 *
 *   npx tsx examples/chat.ts [directory]
 */
import { createInterface } from "node:readline/promises"
import { createProvider, createRuntime, type Permission, type Question } from "agentloop-sdk"
import { type CallOptions, say } from "agentloop-sdk/testing"
import { codingPreset } from "agentloop-sdk/tools"
import { chooseModel } from "./choose-model.js"

const directory = process.argv[2] ?? process.cwd()
const terminal = createInterface({ input: process.stdin, output: process.stdout })
const { label, ...model } = chooseModel(() => scriptedReply)
console.log(
  `Model: ${label}\nDirectory: ${directory}\nType a message; /compact summarises; Ctrl-C cancels a turn.\n`,
)

const runtime = createRuntime({
  provider: createProvider({
    models: [model],
    default: { providerID: model.providerID, modelID: model.modelID },
  }),
  ...codingPreset({ directory }),
  onPermission: (request) => askPermission(request),
  onQuestion: (request) => askQuestions(request),
})
runtime.events.on("message.part.delta", (event) => {
  process.stdout.write(event.properties.delta)
})
runtime.events.on("message.part.updated", ({ properties: { part } }) => {
  if (part.type === "tool" && (part.state.status === "completed" || part.state.status === "error"))
    console.log(`\n[${part.tool}] ${part.state.status === "completed" ? part.state.title : part.state.error}`)
})

const session = await runtime.session.create({ title: "Terminal chat" })
let running = false
terminal.on("SIGINT", () => {
  if (!running) return terminal.close()
  runtime.session.cancel(session.id)
  console.log("\n[cancelled]")
})

for await (const line of terminal) {
  const text = line.trim()
  if (!text) continue
  running = true
  try {
    if (text === "/compact") {
      await runtime.session.compact({ sessionID: session.id })
      console.log("\n[compacted]")
    } else {
      const answer = await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text }] })
      const error = answer.info.role === "assistant" ? answer.info.error : undefined
      console.log(error ? `\n[${error.name}] ${"message" in error.data ? error.data.message : ""}` : "\n")
    }
  } catch (error) {
    console.log(`\n[error] ${error instanceof Error ? error.message : String(error)}`)
  } finally {
    running = false
  }
}
await runtime.close()

async function askPermission(request: Permission.Request) {
  const line = await terminal.question(
    `\nAllow ${request.permission} ${request.patterns.join(", ")}? [y]es/[a]lways/[N]o `,
  )
  const answer = line.trim().toLowerCase()
  return answer === "a" ? "always" : answer === "y" ? "once" : "reject"
}

async function askQuestions(request: Question.Request): Promise<Question.Answer[]> {
  const answers: Question.Answer[] = []
  for (const question of request.questions) {
    const options = question.options.map(
      (option, index) => `  ${index + 1}. ${option.label}: ${option.description}`,
    )
    const line = await terminal.question(`\n${question.question}\n${options.join("\n")}\n> `)
    const chosen = question.options[Number(line.trim()) - 1]
    answers.push([chosen ? chosen.label : line.trim()])
  }
  return answers
}

/** Offline: an answer that shows the loop at work (a summary for /compact, an echo otherwise). */
function scriptedReply(call: CallOptions) {
  const last = call.prompt.at(-1)
  const text =
    last?.role === "user" ? last.content.flatMap((part) => (part.type === "text" ? [part.text] : [])) : []
  return [
    say.text(`(scripted) You said: ${text.join(" ")}`, { chunks: 4 }),
    say.usage({ input: 500, output: 20 }),
  ]
}
