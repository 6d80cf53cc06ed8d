// A turn on PostgreSQL whose session-lock connection drops mid-turn (its backend terminated): the
// lock is taken again on a new connection and the turn goes on, unless another owner took the
// session meanwhile.
import { randomBytes } from "node:crypto"
import pg from "pg"
import { expect, it } from "vitest"
import { z } from "zod"
import { SessionMovedError, Tool } from "../../src/index.js"
import { SessionMovedError as ExportedHere, PostgresStorage } from "../../src/storage/postgres/index.js"
import { createTestRuntime, say } from "../../src/testing/index.js"
import { connectionGate } from "./pg-faults-helpers.js"
import { postgresSuite } from "./pg-suite.js"

const clients: pg.Client[] = []
const { url, suite, dropAfter } = postgresSuite({
  cleanup: () => Promise.all(clients.map((client) => client.end().catch(() => undefined))),
})

async function client(): Promise<pg.Client> {
  const opened = new pg.Client({ connectionString: url })
  opened.on("error", () => undefined)
  clients.push(opened)
  await opened.connect()
  return opened
}

/** The backends holding (granted) or waiting for the session's advisory lock. */
async function lockers(admin: pg.Client, schema: string, sessionID: string) {
  const { rows } = await admin.query<{ pid: number; granted: boolean }>(
    `SELECT pid, granted FROM pg_locks
     WHERE locktype = 'advisory' AND objsubid = 2
       AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
       AND classid::int = hashtext($1) AND objid::int = hashtext($2)`,
    [schema, sessionID],
  )
  return rows
}

async function until<T>(read: () => Promise<T | undefined>, what: string): Promise<T> {
  const deadline = performance.now() + 10_000
  for (;;) {
    const value = await read()
    if (value !== undefined) return value
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** A runtime on a fresh schema whose `work` tool does `during(sessionID)` mid-turn. */
async function turnWith(
  during: (admin: pg.Client, schema: string, sessionID: string) => Promise<void>,
  connectionString = url,
) {
  const schema = `l_${randomBytes(6).toString("hex")}`
  dropAfter(schema)
  const admin = await client()
  const storage = new PostgresStorage({ connectionString, max: 4 }, { schema })
  const work = Tool.define("work", {
    description: "Works",
    parameters: z.object({}),
    async execute(_, context) {
      await during(admin, schema, context.sessionID)
      return { title: "worked", output: "worked", metadata: {} }
    },
  })
  const { runtime } = createTestRuntime({
    storage,
    tools: [work],
    turns: [[say.toolCall("work", {})], [say.text("Done.")]],
  })
  const session = await runtime.session.create({})
  const prompt = runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "go" }] })
  return { runtime, prompt, admin, schema, sessionID: session.id }
}

/** Terminates the backend that holds the session's lock; resolves its pid. */
async function terminateHolder(admin: pg.Client, schema: string, sessionID: string): Promise<number> {
  const [holder] = (await lockers(admin, schema, sessionID)).filter((row) => row.granted)
  expect(holder).toBeDefined()
  await admin.query("SELECT pg_terminate_backend($1)", [holder!.pid])
  return holder!.pid
}

suite("a PostgreSQL turn whose session-lock connection drops", () => {
  it("takes the lock again on a new connection and completes when no one else took the session", async () => {
    let dropped = 0
    const { runtime, prompt, admin, schema, sessionID } = await turnWith(async (admin, schema, sessionID) => {
      dropped = await terminateHolder(admin, schema, sessionID)
      // The lock is held again, by another backend of this process.
      await until(async () => {
        const [holder] = (await lockers(admin, schema, sessionID)).filter((row) => row.granted)
        return holder && holder.pid !== dropped ? holder : undefined
      }, "the lock to be taken again")
    })
    const turn = await prompt
    expect(turn.info).not.toHaveProperty("error")
    expect(turn.text).toBe("Done.")
    expect(turn.toolCalls.map((call) => call.state.status)).toEqual(["completed"])
    expect(dropped).toBeGreaterThan(0)
    // Released at the end of the turn, as any lease.
    await until(
      async () => ((await lockers(admin, schema, sessionID)).length === 0 ? true : undefined),
      "the lock to be released",
    )
    await runtime.close()
  }, 30_000)

  it("waits for a new connection while the server cannot be reached for a moment, then completes", async () => {
    const target = new URL(url!)
    const gate = await connectionGate({ host: target.hostname, port: Number(target.port) })
    const through = new URL(url!)
    through.port = String(gate.port)
    const { runtime, prompt } = await turnWith(async (admin, schema, sessionID) => {
      // New connections wait at the gate: the one that takes the lock again among them.
      const waiting = gate.hold()
      await terminateHolder(admin, schema, sessionID)
      await waiting
      gate.open()
    }, through.toString())
    const turn = await prompt
    expect(turn.info).not.toHaveProperty("error")
    expect(turn.text).toBe("Done.")
    await runtime.close()
    await gate.close()
  }, 30_000)

  it("ends the turn with SessionMovedError when another owner took the session meanwhile", async () => {
    const other = await client()
    let grabbed: Promise<unknown> | undefined
    const { runtime, prompt } = await turnWith(async (admin, schema, sessionID) => {
      // Another process waits for the lock: it gets it the moment the owner's connection drops.
      grabbed = other.query("SELECT pg_advisory_lock(hashtext($1), hashtext($2))", [schema, sessionID])
      await until(
        async () =>
          (await lockers(admin, schema, sessionID)).some((row) => !row.granted) ? true : undefined,
        "the other owner to wait",
      )
      await terminateHolder(admin, schema, sessionID)
      await grabbed
    })
    const error = await prompt.then(
      () => expect.fail("expected the turn to fail"),
      (error: unknown) => error,
    )
    expect(SessionMovedError.isInstance(error)).toBe(true)
    expect(ExportedHere.isInstance(error)).toBe(true)
    expect((error as SessionMovedError).message).toMatch(/another process/)
    await runtime.close()
  }, 30_000)
})
