/**
 * What agentloop does today, end to end without a model: durable sessions in a real SQLite
 * file, typed events, forking, and typed errors. Run with `npm run demo`.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createRuntime, type MessageV2, NotFoundError } from "agentloop-sdk"
import { SqliteStorage } from "agentloop-sdk/storage/sqlite"

const directory = mkdtempSync(join(tmpdir(), "agentloop-demo-"))
const file = join(directory, "sessions.db")

const runtime = createRuntime({ storage: new SqliteStorage(file) })
runtime.events.onAny((event) => {
  console.log(`  event ${event.type}`)
})

console.log(`Creating a session in ${file}`)
const session = await runtime.session.create({ title: "Demo" })

// The prompt loop will write these; here we write a short exchange by hand.
const userID = await runtime.session.newMessageID(session.id)
await runtime.session.updateMessage({
  id: userID,
  sessionID: session.id,
  role: "user",
  time: { created: Date.now() },
  agent: "build",
  model: { providerID: "example", modelID: "example-model" },
})
await runtime.session.updatePart({
  id: runtime.session.newPartID(userID),
  sessionID: session.id,
  messageID: userID,
  type: "text",
  text: "What is in this directory?",
})
const assistantID = await runtime.session.newMessageID(session.id)
const assistant: MessageV2.Assistant = {
  id: assistantID,
  sessionID: session.id,
  role: "assistant",
  time: { created: Date.now(), completed: Date.now() },
  parentID: userID,
  agent: "build",
  providerID: "example",
  modelID: "example-model",
  path: { cwd: directory, root: directory },
  cost: 0.0021,
  tokens: { input: 1200, output: 40, reasoning: 0, cache: { read: 0, write: 0 } },
  finish: "stop",
}
await runtime.session.updateMessage(assistant)
const textID = runtime.session.newPartID(assistantID)
await runtime.session.updatePart({
  id: textID,
  sessionID: session.id,
  messageID: assistantID,
  type: "text",
  text: "",
})
for (const delta of ["Just ", "sessions.db."]) {
  // Deltas are events only: the finished part below is the one write.
  runtime.session.updatePartDelta({
    sessionID: session.id,
    messageID: assistantID,
    partID: textID,
    field: "text",
    delta,
  })
}
await runtime.session.updatePart({
  id: textID,
  sessionID: session.id,
  messageID: assistantID,
  type: "text",
  text: "Just sessions.db.",
})

const fork = await runtime.session.fork({ sessionID: session.id, messageID: assistantID })
console.log(`Forked "${session.title}" before the answer into "${fork.title}"`)
await runtime.close()

console.log("Reopening the file with a new runtime")
const reopened = createRuntime({ storage: new SqliteStorage(file) })
for (const info of await reopened.session.list()) {
  const messages = await reopened.session.messages(info.id)
  console.log(`- ${info.title}: ${messages.length} message(s)`)
  for (const { info: message, parts } of messages) {
    const text = parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("")
    console.log(`    ${message.role}: ${text}`)
  }
}
// An ID that differs from the fork's in its last character, so no such session exists.
const missing = fork.id.slice(0, -1) + (fork.id.endsWith("0") ? "1" : "0")
try {
  await reopened.session.get(missing)
} catch (error) {
  if (NotFoundError.isInstance(error)) console.log(`Typed error: ${error.name} for ${error.data.id}`)
}
await reopened.close()
rmSync(directory, { recursive: true, force: true })
