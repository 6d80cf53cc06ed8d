import { randomBytes } from "node:crypto"
import pg from "pg"
import { afterAll, describe, expect, it } from "vitest"
import { NotFoundError } from "../../src/error/not-found.js"
import { PostgresStorage, SchemaVersionError, StorageClosedError } from "../../src/storage/postgres/index.js"
import { LATEST_VERSION } from "../../src/storage/postgres/migrations.js"
import { createBuilders, storageConformance } from "../../src/testing/index.js"

const url = process.env.AGENTLOOP_PG_URL
const suite = url ? describe : describe.skip
const pool = url ? new pg.Pool({ connectionString: url, max: 4 }) : undefined
const schemas: string[] = []
const newSchema = () => {
  const schema = `t_${randomBytes(6).toString("hex")}`
  schemas.push(schema)
  return schema
}
const open = (schema = newSchema()) => new PostgresStorage({ connectionString: url, max: 4 }, { schema })

afterAll(async () => {
  if (!pool) return
  for (const schema of schemas) await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
  await pool.end()
})

suite("PostgresStorage", () => {
  const tables = new WeakMap<PostgresStorage, string>()
  storageConformance(
    () => {
      const schema = newSchema()
      const storage = open(schema)
      tables.set(storage, schema)
      return storage
    },
    {
      describe,
      it,
      async corrupt(storage, target) {
        const schema = tables.get(storage)!
        const changed = await pool!.query(`UPDATE "${schema}".${target.kind} SET data = $1 WHERE id = $2`, [
          JSON.stringify({ id: target.id, broken: true }),
          target.id,
        ])
        expect(changed.rowCount).toBe(1)
      },
    },
  )

  it("keeps NUL and lone surrogates in rows, values and keys", async () => {
    const storage = open()
    const build = createBuilders()
    const session = build.session()
    const message = build.user(session.id)
    const odd = "a\u0000b\ud800c\udc00x\ud83d"
    const part = { ...build.text(session.id, message.id), text: odd }
    await storage.write([
      { type: "session.put", info: { ...session, title: odd } },
      { type: "message.put", info: message },
      { type: "part.put", part },
      { type: "value.put", key: `k/${odd}`, value: { odd } },
    ])
    const [listed] = await storage.listMessages(session.id)
    expect(listed!.parts[0]).toEqual(part)
    expect((await storage.getSession(session.id))!.title).toBe(odd)
    expect(await storage.getValue(`k/${odd}`)).toEqual({ odd })
    expect(await storage.listValues("k/")).toEqual([{ key: `k/${odd}`, value: { odd } }])
    await storage.close()
  })

  it("lists values in JavaScript string order, also for characters beyond U+FFFF", async () => {
    const storage = open()
    const keys = ["p/\uffff", "p/😀", "p/\ue000", "p/a", "p/"]
    await storage.write(keys.map((key) => ({ type: "value.put" as const, key, value: key })))
    expect((await storage.listValues("p/")).map((entry) => entry.key)).toEqual([...keys].sort())
    expect((await storage.listValues("p/\ud83d")).map((entry) => entry.key)).toEqual(["p/😀"])
    await storage.close()
  })

  it("migrates a fresh schema once, also when two processes open it at the same time", async () => {
    const schema = newSchema()
    const [a, b] = [open(schema), open(schema)]
    await Promise.all([a.listSessions(), b.listSessions()])
    const { rows } = await pool!.query(`SELECT value FROM "${schema}".meta WHERE key = 'schema_version'`)
    expect(rows).toEqual([{ value: LATEST_VERSION }])
    await Promise.all([a.close(), b.close()])
  })

  it("refuses a schema a newer agentloop migrated, naming the versions", async () => {
    const schema = newSchema()
    const first = open(schema)
    await first.listSessions()
    await first.close()
    await pool!.query(`UPDATE "${schema}".meta SET value = $1 WHERE key = 'schema_version'`, [
      LATEST_VERSION + 1,
    ])
    const later = open(schema)
    const error = await later.listSessions().catch((caught: unknown) => caught)
    expect(SchemaVersionError.isInstance(error)).toBe(true)
    expect((error as SchemaVersionError).data).toMatchObject({
      found: LATEST_VERSION + 1,
      supported: LATEST_VERSION,
    })
    await later.close()
  })

  it("writes a batch whole or not at all", async () => {
    const storage = open()
    const build = createBuilders()
    const session = build.session()
    const error = await storage
      .write([
        { type: "session.put", info: session },
        { type: "value.put", key: "written", value: 1 },
        { type: "message.remove", sessionID: session.id, messageID: build.user(session.id).id },
      ])
      .catch((caught: unknown) => caught)
    expect(NotFoundError.isInstance(error)).toBe(true)
    expect(await storage.getSession(session.id)).toBeUndefined()
    expect(await storage.getValue("written")).toBeUndefined()
    await storage.close()
  })

  it("shares rows between storages on one schema, and leaves a pool it was given open", async () => {
    const schema = newSchema()
    const given = new pg.Pool({ connectionString: url, max: 2 })
    const a = new PostgresStorage(given, { schema })
    const b = open(schema)
    const session = createBuilders().session()
    await a.write([{ type: "session.put", info: session }])
    expect(await b.getSession(session.id)).toEqual(session)
    await a.close()
    expect((await given.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }])
    await given.end()
    await b.close()
    const error = await b.getSession(session.id).catch((caught: unknown) => caught)
    expect(StorageClosedError.isInstance(error)).toBe(true)
  })

  it("refuses a schema name it could not quote safely", () => {
    expect(() => new PostgresStorage({ connectionString: url }, { schema: 'x"; DROP TABLE y; --' })).toThrow(
      /schema/,
    )
  })
})
