/**
 * A session that outgrows a small context window: the loop summarises the older turns, keeps the
 * latest one verbatim and carries on. Offline, with a scripted model whose reported usage grows.
 *
 *   npx tsx examples/compaction.ts
 */
import { createProvider, createRuntime, MessageV2 } from "agentloop-sdk"
import { say, scriptedModel, testModelInfo } from "agentloop-sdk/testing"

// A 30,000-token window with 4,000 reserved for the answer: compaction starts at 26,000 used.
const info = { ...testModelInfo, limit: { context: 30_000, output: 4_000 } }
const model = scriptedModel([
  [say.text("We need a parser for the config file."), say.usage({ input: 9_000, output: 300 })],
  [say.text("The parser handles sections and keys now."), say.usage({ input: 18_000, output: 400 })],
  [say.text("Comments are handled too."), say.usage({ input: 26_500, output: 300 })],
  // The compaction agent's summary:
  [say.text("## Goal\nA config-file parser.\n## Progress\nSections, keys and comments parse.")],
  [say.text("Next: error messages with line numbers.")],
])
const runtime = createRuntime({
  provider: createProvider({
    models: [{ providerID: info.providerID, modelID: info.id, language: model, info }],
    default: { providerID: info.providerID, modelID: info.id },
  }),
  compaction: { tailTurns: 1 },
})
runtime.events.on("session.compacted", () => console.log("  [event] session.compacted"))

const session = await runtime.session.create({ title: "Parser" })
for (const text of ["Write a config parser.", "Add sections.", "Add comments.", "What next?"]) {
  const answer = await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text }] })
  console.log(`> ${text}\n${textOf(answer)}`)
}

// The last call saw the summary, the retained turn and the new question, not the first turns.
const seen = JSON.stringify(model.calls.at(-1)?.prompt)
console.log(`\nThe last call saw "Write a config parser.": ${seen.includes("Write a config parser.")}`)
console.log(`The last call saw the summary: ${seen.includes("Sections, keys and comments parse.")}`)

const stored = await runtime.session.messages(session.id)
const visible = MessageV2.filterCompacted(stored)
console.log(`Stored messages: ${stored.length}; what the model sees now: ${visible.length}`)
await runtime.close()

function textOf(message: MessageV2.WithParts): string {
  return message.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("")
}
