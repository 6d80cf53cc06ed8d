/**
 * The program a durability trial runs: `node child.ts <seed> <dbfile> <driver>` on SQLite (driver
 * node:sqlite or better-sqlite3), or `node child.ts <seed> <postgres URL> <schema>` on PostgreSQL. It runs a streaming, tool-using
 * session (see plan.ts and script.ts) and prints what it has stored (acks.ts) until the parent's
 * SIGKILL stops it somewhere, or to its end while it lives through the trial's fault.
 */
import { writeSync } from "node:fs"
import { createProvider, createRuntime, type Event, type Storage, StorageError } from "../../src/index.js"
import { PostgresStorage } from "../../src/storage/postgres/index.js"
import { SqliteStorage } from "../../src/storage/sqlite/index.js"
import { scriptedModel, testModelInfo } from "../../src/testing/index.js"
import { line } from "./acks.js"
import { planRun } from "./plan.js"
import { probeRules, probeTool, sleep } from "./probe-tool.js"
import { responderOf } from "./script.js"
import { SlowStorage } from "./slow-storage.js"

const [seedText, store, third] = process.argv.slice(2)
if (seedText === undefined || store === undefined) {
  console.error("usage: child.ts <seed> <dbfile> <driver> | child.ts <seed> <postgres URL> <schema>")
  process.exit(2)
}
const plan = planRun(Number(seedText))
// writeSync: the line is in the pipe before the next statement runs, so a kill cannot lose it.
const print = (text: string) => writeSync(1, `${text}\n`)

const ref = { providerID: testModelInfo.providerID, modelID: testModelInfo.id }
const model = scriptedModel([], { fallback: responderOf(plan) })
// Opening the storage may meet the fault too (a full disk has no room for the WAL).
const storage = await persist(async () => openStorage(store, third))
const runtime = createRuntime({
  provider: createProvider({ models: [{ ...ref, language: model, info: testModelInfo }], default: ref }),
  storage: new SlowStorage(storage, plan.writeDelayMs),
  tools: [probeTool],
  permission: probeRules,
  onPermission: async (_request, { signal }) => {
    await sleep(plan.answerDelayMs, signal)
    return "once" as const
  },
  askTimeoutMs: 30_000,
})

let cost = 0
runtime.events.onAny((event) => {
  const name = phaseOf(event)
  if (name) print(line.phase(name))
  if (event.type !== "message.part.updated") return
  const { part } = event.properties
  if ((part.type === "text" || part.type === "reasoning") && part.time !== undefined)
    print(line.part(part.messageID, part.id))
})

// A title of our own: no title call takes a scripted turn.
const session = await persist(() => runtime.session.create({ title: "Durability trial" }))
print(line.session(session.id))
for (const prompt of plan.prompts) {
  await sleep(plan.pauseMs)
  const user = await persist(() =>
    runtime.session.prompt({
      sessionID: session.id,
      parts: [{ type: "text", text: prompt.question }],
      noReply: true,
    }),
  )
  print(line.user(session.id, user.info.id, prompt.index))
  // A turn that storage failed under goes on with loop(), as a host would once storage works.
  const answer = await persist(() => runtime.session.loop(session.id))
  if (answer.info.role !== "assistant" || answer.info.error)
    throw new Error(`prompt ${prompt.index + 1} failed: ${JSON.stringify(answer.info)}`)
  print(line.answer(answer.info.id, prompt.index))
}
await runtime.close()
print(line.done())

/**
 * Short retry bounds, so that a fault outlasting them fails a turn: about 0.2 s for a lock
 * another process holds, about 0.3 s for PostgreSQL (a restart takes about that long: some
 * are ridden out, some fail a turn).
 */
function openStorage(store: string, third: string | undefined): Storage {
  if (!store.startsWith("postgres://")) {
    if (third !== "node:sqlite" && third !== "better-sqlite3")
      throw new Error(`no SQLite driver named ${third}`)
    const storage = new SqliteStorage(store, { retry: { maxAttempts: 6, maxDelayMs: 40 }, driver: third })
    // A trial on one driver must not quietly run on the other.
    if (storage.driver !== third)
      throw new Error(`asked for ${third}, SqliteStorage opened ${storage.driver}`)
    return storage
  }
  const schema = third
  return new PostgresStorage(
    { connectionString: store, max: 4 },
    { ...(schema === undefined ? {} : { schema }), retry: { maxAttempts: 3, maxDelayMs: 150 } },
  )
}

/**
 * Runs `call` until it succeeds while storage fails with a StorageError (a lock another process
 * holds, a full disk, a lost server), printing each fault; anything else fails the trial.
 */
async function persist<T>(call: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await call()
    } catch (error) {
      if (!StorageError.isInstance(error)) throw error
      print(line.fault(error.data.reason))
      await sleep(50)
    }
  }
}

/** Where the run is, from the event a write just published; undefined for events not worth a line. */
function phaseOf(event: Event): string | undefined {
  switch (event.type) {
    case "message.part.updated": {
      const { part } = event.properties
      // A user's text part has no time; an assistant's always has.
      if ((part.type === "text" || part.type === "reasoning") && part.time !== undefined)
        return `${part.type}-${part.time?.end === undefined ? "started" : "ended"}`
      if (part.type === "tool") return `tool-${part.state.status}`
      if (part.type === "step-start" || part.type === "step-finish") return part.type
      return undefined
    }
    case "message.updated": {
      const { info } = event.properties
      if (info.role === "user") return undefined
      if (info.time.completed !== undefined) return "assistant-completed"
      return info.finish === undefined ? "assistant-created" : "assistant-finish-written"
    }
    case "session.updated": {
      const changed = event.properties.info.cost !== cost
      cost = event.properties.info.cost
      return changed ? "usage-recorded" : undefined
    }
    case "permission.asked":
      return "permission-asked"
    case "permission.replied":
      return "permission-replied"
    default:
      return undefined
  }
}
