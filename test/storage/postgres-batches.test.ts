import { randomBytes } from "node:crypto"
import pg from "pg"
import { afterAll, describe, expect, it } from "vitest"
import { InvalidInputError } from "../../src/error/invalid-input.js"
import { NotFoundError } from "../../src/error/not-found.js"
import type { WithParts } from "../../src/message/info.js"
import type { Part, TextPart } from "../../src/message/part.js"
import { CorruptRowError } from "../../src/storage/corrupt-row.js"
import { MemoryStorage } from "../../src/storage/memory.js"
import type { Storage, StorageWrite } from "../../src/storage/port.js"
import { PostgresStorage, type PostgresStorageOptions } from "../../src/storage/postgres/index.js"
import { createBuilders } from "../../src/testing/index.js"
import { commitCutter } from "./pg-faults-helpers.js"

const url = process.env.AGENTLOOP_PG_URL
const schemas: string[] = []
const storages: PostgresStorage[] = []

/** The statements a storage sends, as node-postgres received them (text or config). */
type Sent = { text: string; name?: string }

/** A PostgresStorage on a fresh schema whose pool records every statement its clients send. */
async function recorded(options: PostgresStorageOptions = {}) {
  const sent: Sent[] = []
  class RecordingClient extends pg.Client {
    override query(...args: unknown[]): never {
      const [config] = args as [string | { text: string; name?: string }]
      sent.push(typeof config === "string" ? { text: config } : { text: config.text, name: config.name })
      return (super.query as (...rest: unknown[]) => never)(...args)
    }
  }
  const schema = `b_${randomBytes(6).toString("hex")}`
  schemas.push(schema)
  const pool = new pg.Pool({ connectionString: url, max: 4, Client: RecordingClient })
  const storage = new PostgresStorage(pool, { schema, ...options })
  storages.push(storage)
  await storage.write([]) // migrate before counting
  return {
    storage,
    pool,
    schema,
    /** What `run` sent, from the first statement to the last. */
    async statements(run: () => Promise<unknown>): Promise<Sent[]> {
      sent.length = 0
      await run()
      return [...sent]
    },
  }
}

afterAll(async () => {
  for (const storage of storages) await storage.close()
  if (!url) return
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
  await admin.end()
})

/** What a storage holds of a session and some values, to compare two storages. */
async function contents(storage: Storage, sessionID: string, keys: string[]) {
  return {
    session: await storage.getSession(sessionID),
    messages: await storage.listMessages(sessionID),
    values: await Promise.all(keys.map((key) => storage.getValue(key))),
  }
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail("expected the write to fail"),
    (error: unknown) => error,
  )
}

describe.runIf(url)("PostgresStorage batches", () => {
  it("writes a message with 2,000 parts in a few statements, and lists them back in order", async () => {
    const { storage, statements } = await recorded()
    const build = createBuilders()
    const session = build.session()
    await storage.write([{ type: "session.put", info: session }])
    const message = build.assistant(session.id, build.user(session.id).id)
    const parts: Part[] = Array.from({ length: 2_000 }, (_, index) =>
      build.text(session.id, message.id, `part ${index} "quoted" \\ \u0000 ${"x".repeat(index % 300)}`),
    )
    const sent = await statements(() =>
      storage.write([
        { type: "message.put", info: message },
        ...parts.map((part) => ({ type: "part.put" as const, part })),
      ]),
    )
    // One transaction: BEGIN, a statement per chunk of 256 writes, COMMIT.
    expect(sent.length).toBeLessThanOrEqual(10)
    expect(await storage.listMessages(session.id)).toEqual([{ info: message, parts }])
  })

  it("applies a batch mixing row kinds, removes and repeated rows as one write at a time would", async () => {
    const { storage } = await recorded()
    const memory = new MemoryStorage()
    const build = createBuilders()
    const session = build.session()
    const [first, second] = [build.user(session.id), build.user(session.id)]
    const kept = build.text(session.id, first.id, "first version")
    const gone = build.text(session.id, first.id)
    const setup: StorageWrite[] = [
      { type: "session.put", info: session },
      { type: "message.put", info: first },
      { type: "part.put", part: gone },
      { type: "value.put", key: "k/removed-first", value: 1 },
    ]
    const batch: StorageWrite[] = [
      { type: "part.put", part: kept },
      { type: "part.remove", sessionID: session.id, messageID: first.id, partID: gone.id },
      { type: "part.put", part: { ...kept, text: "second version" } as Part },
      { type: "message.put", info: second },
      { type: "part.put", part: build.text(session.id, second.id) },
      { type: "message.remove", sessionID: session.id, messageID: second.id },
      { type: "value.put", key: "k/put-then-removed", value: 1 },
      { type: "value.remove", key: "k/put-then-removed" },
      { type: "value.remove", key: "k/removed-first" },
      { type: "value.put", key: "k/removed-first", value: 2 },
      { type: "value.put", key: "k/twice", value: 1 },
      { type: "value.put", key: "k/twice", value: 2 },
      { type: "session.put", info: { ...session, title: "renamed" } },
    ]
    for (const target of [storage, memory]) {
      await target.write(setup)
      await target.write(batch)
    }
    const keys = ["k/put-then-removed", "k/removed-first", "k/twice"]
    const stored = await contents(storage, session.id, keys)
    expect(stored).toEqual(await contents(memory, session.id, keys))
    expect(stored.messages).toEqual([{ info: first, parts: [{ ...kept, text: "second version" }] }])
    expect(stored.values).toEqual([undefined, 2, 2])
    expect(stored.session?.title).toBe("renamed")
  })

  it("writes a step's end (message, parts, then the session's totals) as one statement", async () => {
    const { storage, statements } = await recorded()
    const build = createBuilders()
    const session = build.session()
    const message = build.user(session.id)
    await storage.write([{ type: "session.put", info: session }])
    const part = build.text(session.id, message.id)
    const totals = { ...session, cost: 0.5 }
    const sent = await statements(() =>
      storage.write([
        { type: "message.put", info: message },
        { type: "part.put", part },
        { type: "session.put", info: totals },
      ]),
    )
    expect(sent).toHaveLength(1)
    expect(await storage.getSession(session.id)).toEqual(totals)
    expect(await storage.listMessages(session.id)).toEqual([{ info: message, parts: [part] }])
  })

  it("stores the JSON text its validation encoded: each row is encoded once, alone or in a batch", async () => {
    const { storage } = await recorded()
    const build = createBuilders()
    const session = build.session()
    const message = build.user(session.id)
    await storage.write([{ type: "session.put", info: session }])
    // Each encoding calls toJSON again, and stores what that call returned.
    let encodings = 0
    const counted = (part: Part) => ({ ...part, metadata: { probe: { toJSON: () => ++encodings } } }) as Part
    const alone = counted(build.text(session.id, message.id))
    const grouped = counted(build.text(session.id, message.id))
    await storage.write([{ type: "message.put", info: message }])
    await storage.write([{ type: "part.put", part: alone }])
    await storage.write([
      { type: "message.put", info: message },
      { type: "part.put", part: grouped },
    ])
    expect(encodings).toBe(2)
    const [stored] = await storage.listMessages(session.id)
    expect(stored!.parts.map((part) => (part as TextPart).metadata)).toEqual([{ probe: 1 }, { probe: 2 }])
  })

  it("refuses a row written before the session or message it needs, even when the batch puts that later, and writes nothing", async () => {
    const { storage } = await recorded()
    const build = createBuilders()
    const session = build.session()
    const message = build.user(session.id)
    const part = build.text(session.id, message.id)
    const missingSession = await rejection(
      storage.write([
        { type: "message.put", info: message },
        { type: "session.put", info: session },
      ]),
    )
    expect(NotFoundError.isInstance(missingSession)).toBe(true)
    expect((missingSession as NotFoundError).message).toContain(session.id)
    expect(await storage.getSession(session.id)).toBeUndefined()

    await storage.write([{ type: "session.put", info: session }])
    const missingMessage = await rejection(
      storage.write([
        { type: "value.put", key: "written", value: 1 },
        { type: "part.put", part },
        { type: "message.put", info: message },
      ]),
    )
    expect(NotFoundError.isInstance(missingMessage)).toBe(true)
    expect((missingMessage as NotFoundError).message).toContain(message.id)
    expect(await storage.listMessages(session.id)).toEqual([])
    expect(await storage.getValue("written")).toBeUndefined()
  })

  it("tells rows of one ID in two sessions apart in a batch, as one write at a time would", async () => {
    const { storage } = await recorded()
    const memory = new MemoryStorage()
    const build = createBuilders()
    const [first, second] = [build.session(), build.session()]
    const inSecond = build.user(second.id)
    // The same message ID in the first session, not stored there yet.
    const inFirst = { ...inSecond, sessionID: first.id }
    const part = build.text(second.id, inSecond.id)
    const setup: StorageWrite[] = [
      { type: "session.put", info: first },
      { type: "session.put", info: second },
      { type: "message.put", info: inSecond },
    ]
    // A part of each session's message of that ID, then that message put in the first session:
    // one at a time, the first part finds its message missing.
    const needsMissing: StorageWrite[] = [
      { type: "part.put", part: build.text(first.id, inSecond.id) },
      { type: "part.put", part },
      { type: "message.put", info: inFirst },
    ]
    // The same part ID in both sessions: two rows, both stored.
    const samePartID: StorageWrite[] = [
      { type: "message.put", info: inFirst },
      { type: "part.put", part: { ...part, sessionID: first.id } as Part },
      { type: "part.put", part },
    ]
    for (const target of [storage, memory]) {
      await target.write(setup)
      const error = await rejection(target.write(needsMissing))
      expect(NotFoundError.isInstance(error)).toBe(true)
      expect((error as NotFoundError).message).toContain(inSecond.id)
      expect(await target.listMessages(first.id)).toEqual([])
      await target.write(samePartID)
    }
    const stored = await Promise.all([first, second].map((session) => storage.listMessages(session.id)))
    expect(stored).toEqual(
      await Promise.all([first, second].map((session) => memory.listMessages(session.id))),
    )
    expect(stored).toEqual([
      [{ info: inFirst, parts: [{ ...part, sessionID: first.id }] }],
      [{ info: inSecond, parts: [part] }],
    ])
  })

  it("names the one missing message among many rows of a batch, and writes nothing", async () => {
    const { storage } = await recorded()
    const build = createBuilders()
    const session = build.session()
    const message = build.user(session.id)
    const absent = build.user(session.id)
    await storage.write([{ type: "session.put", info: session }])
    const parts = Array.from({ length: 700 }, () => build.text(session.id, message.id))
    // Past the first chunk of a long batch, which has gone to the server by then.
    const error = await rejection(
      storage.write([
        { type: "message.put", info: message },
        ...parts.slice(0, 400).map((part) => ({ type: "part.put" as const, part })),
        { type: "part.put", part: build.text(session.id, absent.id) },
        ...parts.slice(400).map((part) => ({ type: "part.put" as const, part })),
      ]),
    )
    expect(NotFoundError.isInstance(error)).toBe(true)
    expect((error as NotFoundError).message).toContain(absent.id)
    expect(await storage.listMessages(session.id)).toEqual([])
  })

  it("refuses a long batch with an invalid write far into it, naming its place in the batch, and writes nothing", async () => {
    const { storage } = await recorded()
    const build = createBuilders()
    const session = build.session()
    const values = Array.from({ length: 700 }, (_, index) => ({
      type: "value.put" as const,
      key: `v/${index}`,
      value: index as unknown,
    }))
    values[600] = { ...values[600]!, value: 10n }
    const error = await rejection(storage.write([{ type: "session.put", info: session }, ...values]))
    expect(InvalidInputError.isInstance(error)).toBe(true)
    expect((error as InvalidInputError).data.issues[0]!.path).toBe("writes[601].value")
    expect(await storage.getSession(session.id)).toBeUndefined()
    expect(await storage.listValues("v/")).toEqual([])
  })

  it("refuses a long batch whose first write is invalid, while its BEGIN is on its way, and its connection serves on", async () => {
    const { storage, schema } = await recorded()
    const values = Array.from({ length: 300 }, (_, index) => ({
      type: "value.put" as const,
      key: `v/${index}`,
      value: index as unknown,
    }))
    values[0] = { ...values[0]!, value: 10n }
    // Every connection of the pool fails a batch this way, and then writes on it.
    for (let round = 0; round < 8; round++) {
      const error = await rejection(storage.write(values))
      expect((error as InvalidInputError).data.issues[0]!.path).toBe("writes[0].value")
      await storage.write([{ type: "value.put", key: `after/${round}`, value: round }])
    }
    // Read on a connection of its own: none of the storage's was left inside a transaction.
    const reader = new pg.Client({ connectionString: url })
    await reader.connect()
    const { rows } = await reader.query<{ count: string }>(`SELECT count(*) FROM "${schema}".value`)
    await reader.end()
    expect(rows[0]!.count).toBe("8")
  })

  it("prepares its statements under names, unless told not to", async () => {
    const build = createBuilders()
    for (const prepare of [true, false]) {
      const { storage, statements } = await recorded({ prepare })
      const session = build.session()
      const sent = await statements(async () => {
        await storage.write([{ type: "session.put", info: session }])
        expect(await storage.getSession(session.id)).toEqual(session)
      })
      expect(sent.map((statement) => statement.name !== undefined)).toEqual([prepare, prepare])
    }
  })
})

describe.runIf(url)("PostgresStorage batches of many sessions at once", () => {
  /** Sessions, each with one message, stored; and a text part for each message. */
  async function sessions(storage: Storage, count: number) {
    const build = createBuilders()
    const made = Array.from({ length: count }, () => {
      const session = build.session()
      const message = build.user(session.id)
      return { session, message, part: build.text(session.id, message.id) }
    })
    await storage.write(
      made.flatMap(({ session, message }) => [
        { type: "session.put" as const, info: session },
        { type: "message.put" as const, info: message },
      ]),
    )
    return { build, made }
  }

  it("sends the batches of 20 sessions written at once as one statement, each stored", async () => {
    const { storage, statements } = await recorded()
    const { made } = await sessions(storage, 20)
    const sent = await statements(() =>
      Promise.all(made.map(({ part }) => storage.write([{ type: "part.put", part }]))),
    )
    expect(sent).toHaveLength(1)
    for (const { session, message, part } of made)
      expect(await storage.listMessages(session.id)).toEqual([{ info: message, parts: [part] }])
  })

  it("sends batches that come while a statement is on its way together once it is back", async () => {
    const { storage, statements } = await recorded()
    const { made } = await sessions(storage, 11)
    const [first, ...rest] = made
    const sent = await statements(async () => {
      const alone = storage.write([{ type: "part.put", part: first!.part }])
      // The first is on its way by now (its microtask ran); these ten wait for it.
      await new Promise((resolve) => setImmediate(resolve))
      await Promise.all([alone, ...rest.map(({ part }) => storage.write([{ type: "part.put", part }]))])
    })
    expect(sent).toHaveLength(2)
    for (const { session, part } of made)
      expect((await storage.listMessages(session.id))[0]?.parts).toEqual([part])
  })

  it("runs the batches of a merged statement alone when one fails: only that one fails, the others are stored", async () => {
    const { storage } = await recorded()
    const { build, made } = await sessions(storage, 4)
    const orphan = build.text(made[0]!.session.id, build.user(made[0]!.session.id).id)
    const writes = [
      ...made.map(({ part }) => storage.write([{ type: "part.put", part }])),
      storage.write([{ type: "part.put", part: orphan }]),
    ]
    const outcomes = await Promise.allSettled(writes)
    expect(outcomes.slice(0, 4).map((outcome) => outcome.status)).toEqual(Array(4).fill("fulfilled"))
    const failed = outcomes[4] as PromiseRejectedResult
    expect(NotFoundError.isInstance(failed.reason)).toBe(true)
    expect((failed.reason as NotFoundError).data.message).toContain(orphan.messageID)
    for (const { session, part } of made)
      expect((await storage.listMessages(session.id))[0]?.parts).toEqual([part])
  })

  it("stores the batches still waiting for a statement when close() is called", async () => {
    const { storage, pool } = await recorded()
    const { made } = await sessions(storage, 6)
    const [first, ...rest] = made
    const writes = [storage.write([{ type: "part.put", part: first!.part }])]
    await new Promise((resolve) => setImmediate(resolve))
    writes.push(...rest.map(({ part }) => storage.write([{ type: "part.put", part }])))
    await Promise.all([storage.close(), ...writes])
    // The pool is the test's: close() leaves it open.
    const { rows } = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${schemas.at(-1)}".part`,
    )
    expect(rows[0]!.n).toBe(6)
  })

  it("reads the sessions asked for at once in one statement; a second read of one waits for the next", async () => {
    const { storage, statements } = await recorded()
    const { build, made } = await sessions(storage, 20)
    const ids = [...made.map(({ session }) => session.id), made[0]!.session.id, build.session().id]
    let read: Awaited<ReturnType<Storage["getSession"]>>[] = []
    const sent = await statements(async () => {
      read = await Promise.all(ids.map((id) => storage.getSession(id)))
    })
    expect(sent).toHaveLength(2)
    expect(read).toEqual([...made.map(({ session }) => session), made[0]!.session, undefined])
    expect(read[20]).not.toBe(read[0])
  })

  it("reads the newest message of sessions asked for at once in one statement; an empty or missing session as alone", async () => {
    const { storage, statements } = await recorded()
    const { build, made } = await sessions(storage, 10)
    await storage.write(made.map(({ part }) => ({ type: "part.put" as const, part })))
    const empty = build.session()
    await storage.write([{ type: "session.put", info: empty }])
    const missing = build.session().id
    let read: PromiseSettledResult<WithParts[]>[] = []
    const sent = await statements(async () => {
      const ids = [...made.map(({ session }) => session.id), empty.id, missing]
      read = await Promise.allSettled(ids.map((id) => storage.listMessages(id, { limit: 1 })))
    })
    // One listing; each session with nothing in it asks whether it exists, as alone.
    expect(sent).toHaveLength(3)
    expect(read.slice(0, 11)).toEqual([
      ...made.map(({ message, part }) => ({
        status: "fulfilled",
        value: [{ info: message, parts: [part] }],
      })),
      { status: "fulfilled", value: [] },
    ])
    const failed = read[11] as PromiseRejectedResult
    expect(NotFoundError.isInstance(failed.reason)).toBe(true)
  })

  it("reads messages asked for at once by ID in one statement; a missing one as alone", async () => {
    const { storage, statements } = await recorded()
    const { build, made } = await sessions(storage, 10)
    await storage.write(made.map(({ part }) => ({ type: "part.put" as const, part })))
    const keys = [
      ...made.map(({ session, message }) => [session.id, message.id] as const),
      [made[0]!.session.id, build.user(made[0]!.session.id).id] as const,
      [build.session().id, "msg_01ARZ3NDEKTSV4RRFFQ69G5FAV"] as const,
    ]
    let read: PromiseSettledResult<WithParts | undefined>[] = []
    const sent = await statements(async () => {
      read = await Promise.allSettled(
        keys.map(([sessionID, messageID]) => storage.getMessage(sessionID, messageID)),
      )
    })
    expect(sent).toHaveLength(3)
    expect(read.slice(0, 11)).toEqual([
      ...made.map(({ message, part }) => ({ status: "fulfilled", value: { info: message, parts: [part] } })),
      { status: "fulfilled", value: undefined },
    ])
    expect(NotFoundError.isInstance((read[11] as PromiseRejectedResult).reason)).toBe(true)
  })

  it("fails only the read of a session whose row does not decode when reads share a statement", async () => {
    const { storage, pool } = await recorded()
    const { made } = await sessions(storage, 3)
    const [bad, ...good] = made
    // Another writer's row (its stamp cleared by the trigger), so it is validated on read.
    await pool.query(`UPDATE "${schemas.at(-1)}".message SET data = $1 WHERE id = $2`, [
      '{"id":1}',
      bad!.message.id,
    ])
    const read = await Promise.allSettled(
      made.map(({ session }) => storage.listMessages(session.id, { limit: 1 })),
    )
    expect(CorruptRowError.isInstance((read[0] as PromiseRejectedResult).reason)).toBe(true)
    expect(read.slice(1)).toEqual(
      good.map(({ message }) => ({ status: "fulfilled", value: [{ info: message, parts: [] }] })),
    )
  })

  it("fails only the read whose key the shared statement refused: the others read again alone", async () => {
    const { storage, statements } = await recorded()
    const { made } = await sessions(storage, 3)
    // PostgreSQL text cannot hold NUL: the statement of the whole group fails on this key's account.
    const ids = [...made.map(({ session }) => session.id), "ses_\u0000"]
    let read: PromiseSettledResult<Awaited<ReturnType<Storage["getSession"]>>>[] = []
    const sent = await statements(async () => {
      read = await Promise.allSettled(ids.map((id) => storage.getSession(id)))
    })
    // The group's statement, then each read alone.
    expect(sent).toHaveLength(1 + ids.length)
    expect(read.slice(0, 3)).toEqual(made.map(({ session }) => ({ status: "fulfilled", value: session })))
    expect(read[3]!.status).toBe("rejected")
  })

  it("keeps batches that write the same row apart, in their order: the later one's row stays", async () => {
    const { storage, statements } = await recorded()
    const { made } = await sessions(storage, 1)
    const { session, part } = made[0]!
    const later = { ...part, text: "later" } as TextPart
    const sent = await statements(() =>
      Promise.all([
        storage.write([{ type: "part.put", part }]),
        storage.write([{ type: "part.put", part: later }]),
      ]),
    )
    expect(sent).toHaveLength(2)
    expect((await storage.listMessages(session.id))[0]?.parts).toEqual([later])
  })
})

describe.runIf(url)("PostgresStorage long batches when the connection is cut around COMMIT", () => {
  for (const cut of ["after-commit", "before-commit"] as const) {
    it(`applies a long batch exactly once when the cut comes ${cut.replace("-", " ")}`, async () => {
      const target = new URL(url!)
      const proxy = await commitCutter({ host: target.hostname, port: Number(target.port) })
      try {
        target.port = String(proxy.port)
        const schema = `b_${randomBytes(6).toString("hex")}`
        schemas.push(schema)
        const storage = new PostgresStorage({ connectionString: target.toString() }, { schema })
        storages.push(storage)
        const build = createBuilders()
        const doomed = build.session()
        await storage.write([{ type: "session.put", info: doomed }])
        proxy.arm(cut)
        // Replayed after it committed, the remove would fail with NotFoundError.
        const values = Array.from({ length: 600 }, (_, index) => ({
          type: "value.put" as const,
          key: `v/${String(index).padStart(3, "0")}`,
          value: index,
        }))
        await storage.write([{ type: "session.remove", sessionID: doomed.id }, ...values])
        expect(proxy.cuts).toBe(1)
        expect(await storage.getSession(doomed.id)).toBeUndefined()
        expect((await storage.listValues("v/")).map((entry) => entry.value)).toEqual(
          values.map((v) => v.value),
        )
      } finally {
        await proxy.close()
      }
    }, 30_000)
  }
})
