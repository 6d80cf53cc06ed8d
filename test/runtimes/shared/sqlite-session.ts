// A tool-using session on a SQLite file, as a program run under Bun or Deno does it.
// argv: write <file>            a turn that calls a tool; prints the session's ID
//       read <file> <sessionID> [driver]
//                               in a new process: what is stored read back (the tool's result), and one
//                               more turn; through `driver` when given ("better-sqlite3": the check links
//                               it only for that run), else through the runtime's own SQLite
//       busy <file>             writes while another process holds the write lock: retried, not failed
// The runtime's own command line comes in RUNTIME_COMMAND (JSON array), for the lock holder's process.
import { ok, strictEqual } from "node:assert/strict"
import { spawn } from "node:child_process"
import { join } from "node:path"
import { createRuntime, type MessageV2, Tool } from "agentloop-sdk"
import { SqliteStorage } from "agentloop-sdk/storage/sqlite"
import { say, scriptedModel, type Turn, testModelInfo } from "agentloop-sdk/testing"
import { z } from "zod"

const [phase, file, sessionID, driver] = process.argv.slice(2)

const lookup = Tool.define("lookup", {
  description: "Looks an order up",
  parameters: z.object({ orderID: z.string() }),
  async execute({ orderID }) {
    return { title: orderID, output: `Order ${orderID}: shipped`, metadata: { orderID } }
  },
})

function open(turns: Turn[], through?: "better-sqlite3") {
  const storage = new SqliteStorage(file!, through ? { driver: through } : {})
  // Unless asked for better-sqlite3, no native build anywhere: the runtime's own SQLite opened the file.
  strictEqual(storage.driver, through ?? "node:sqlite")
  const model = { language: scriptedModel(turns), info: testModelInfo }
  return { storage, runtime: createRuntime({ model, storage, tools: [lookup], titles: false }) }
}

function toolPart(messages: MessageV2.WithParts[]) {
  const part = messages.flatMap((message) => message.parts).find((part) => part.type === "tool")
  return part?.type === "tool" ? part : undefined
}

async function write(): Promise<void> {
  const { runtime } = open([[say.toolCall("lookup", { orderID: "A1" })], [say.text("Order A1 has shipped.")]])
  const session = await runtime.session.create({ title: "Orders" })
  const turn = await runtime.session.prompt({
    sessionID: session.id,
    parts: [{ type: "text", text: "Where is order A1?" }],
  })
  strictEqual(turn.text, "Order A1 has shipped.")
  await runtime.close()
  console.log(session.id)
}

async function read(): Promise<void> {
  if (driver !== undefined && driver !== "better-sqlite3") throw new Error(`unknown driver ${driver}`)
  const { runtime } = open([[say.text("Still shipped.")]], driver)
  const messages = await runtime.session.messages(sessionID!)
  // user, the tool call's step, the answer; and two more for each read before this one
  ok(messages.length >= 3 && messages.length % 2 === 1, `${messages.length} messages`)
  const tool = toolPart(messages)
  strictEqual(tool?.state.status, "completed")
  ok(tool?.state.status === "completed" && tool.state.output === "Order A1: shipped")
  strictEqual((await runtime.session.get(sessionID!)).title, "Orders")
  const turn = await runtime.session.prompt({
    sessionID: sessionID!,
    parts: [{ type: "text", text: "And now?" }],
  })
  strictEqual(turn.text, "Still shipped.")
  strictEqual((await runtime.session.messages(sessionID!)).length, messages.length + 2)
  await runtime.close()
  console.log(
    `ok read: ${messages.length} messages and the tool's result read back through ${driver ?? "node:sqlite"}, one more turn written`,
  )
}

const HOLD_MS = 600

/**
 * Three writes that meet the write lock another process holds for HOLD_MS: opening a new file
 * (its schema is written on open), a plain write (a session's title), a whole tool-using turn.
 * Each waits for the lock (retried), none fails.
 */
async function busy(): Promise<void> {
  const waited: string[] = []
  const meet = async (what: string, body: () => Promise<void>, on = file!) => {
    const holder = await holdLock(on)
    const started = Date.now()
    await body()
    const ms = Date.now() - started
    await holder.released
    ok(ms >= HOLD_MS / 2, `${what} took ${ms} ms: it never met the lock`)
    waited.push(`${what} ${ms} ms`)
  }
  // Under Deno, node:sqlite's exec() (which setup uses) reports a lock with no errcode, only its message.
  await meet(
    "opening a new file",
    async () => {
      const fresh = new SqliteStorage(`${file}.fresh.db`)
      strictEqual((await fresh.listSessions()).length, 0)
      await fresh.close()
    },
    `${file}.fresh.db`,
  )
  const { runtime } = open([[say.toolCall("lookup", { orderID: "B2" })], [say.text("B2 has shipped.")]])
  const session = await runtime.session.create()
  await meet("an update", () => runtime.session.update(session.id, { title: "Retried" }).then(() => {}))
  strictEqual((await runtime.session.get(session.id)).title, "Retried")
  await meet("a tool-using turn", async () => {
    const turn = await runtime.session.prompt({
      sessionID: session.id,
      parts: [{ type: "text", text: "B2?" }],
    })
    strictEqual(turn.text, "B2 has shipped.")
  })
  strictEqual(toolPart(await runtime.session.messages(session.id))?.state.status, "completed")
  await runtime.close()
  console.log(
    `ok busy: another process held the write lock for ${HOLD_MS} ms; each waited: ${waited.join(", ")}`,
  )
}

/** Starts the lock holder; resolves once it holds the lock. */
function holdLock(on: string): Promise<{ released: Promise<void> }> {
  const [command, ...args] = JSON.parse(process.env.RUNTIME_COMMAND ?? "[]") as string[]
  if (!command) throw new Error("RUNTIME_COMMAND is not set")
  const child = spawn(command, [...args, join(import.meta.dirname, "lock-holder.ts"), on, String(HOLD_MS)], {
    stdio: ["ignore", "pipe", "inherit"],
    timeout: 20_000,
  })
  let output = ""
  const released = new Promise<void>((resolve, reject) => {
    child.on("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`lock holder exited with ${code}`)),
    )
  })
  return new Promise((resolve, reject) => {
    child.on("error", reject)
    released.catch(reject)
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes("locked\n")) resolve({ released })
    })
  })
}

const phases: Record<string, () => Promise<void>> = { write, read, busy }
const run = phases[phase ?? ""]
if (!run) throw new Error(`unknown phase ${phase}: write, read or busy`)
await run()
