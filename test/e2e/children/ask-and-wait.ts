// A process that starts a turn whose tool asks a permission, says so on stdout, and waits
// forever for a reply: the test kills it with SIGKILL there.
import { z } from "zod"
import { Tool } from "../../../src/index.js"
import { SqliteStorage } from "../../../src/storage/sqlite/index.js"
import { createTestRuntime, say } from "../../../src/testing/index.js"

const [file, sessionTitle] = process.argv.slice(2)
if (!file) throw new Error("usage: ask-and-wait.ts <sqlite file> [title]")

const guarded = Tool.define("guarded", {
  description: "Writes a note, after asking",
  parameters: z.object({ note: z.string() }),
  async execute({ note }, context) {
    await context.ask({ permission: "guarded", patterns: [note] })
    return { title: note, output: `wrote ${note}`, metadata: {} }
  },
})

const { runtime } = createTestRuntime({
  // Killed mid-turn: a short lease, so that the next runtime need not wait long for it to expire.
  storage: new SqliteStorage(file, { coordinator: { leaseMs: 500 } }),
  tools: [guarded],
  permission: [{ permission: "guarded", pattern: "*", action: "ask" }],
  turns: [[say.text("Writing it."), say.toolCall("guarded", { note: "hello" })]],
})
runtime.events.on("permission.asked", (event) => {
  process.stdout.write(`asked ${event.properties.sessionID} ${event.properties.id}\n`)
})
const session = await runtime.session.create({ title: sessionTitle ?? "child" })
await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "write hello" }] })
