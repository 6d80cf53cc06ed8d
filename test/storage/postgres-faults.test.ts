import { randomBytes } from "node:crypto"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { StorageError } from "../../src/index.js"
import { PostgresStorage, type PostgresStorageOptions } from "../../src/storage/postgres/index.js"
import { encodeKey } from "../../src/storage/postgres/keys.js"
import { createBuilders } from "../../src/testing/index.js"
import { findPostgres } from "../setup/pg-cluster.js"
import { commitCutter, type OwnCluster, ownCluster } from "./pg-faults-helpers.js"

const sharedURL = process.env.AGENTLOOP_PG_URL
const bin = findPostgres()
const opened: { url: string; schema: string }[] = []
const storages: PostgresStorage[] = []

/** Polls `condition` (a query, say) until it holds; rejects after `ms`. */
async function eventually(condition: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = performance.now() + ms
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`)
    await new Promise((resolve) => setImmediate(resolve))
  }
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail("expected the call to fail"),
    (error: unknown) => error,
  )
}

/**
 * A storage on a fresh schema whose value table records every write that commits (`audit`), so
 * a test can count how many times a write was applied. A value holding the key "slow" takes
 * half a second to write, which keeps the write in flight for the fault to strike.
 */
async function audited(url: string, config: pg.PoolConfig = {}, options: PostgresStorageOptions = {}) {
  const schema = `f_${randomBytes(6).toString("hex")}`
  const app = `agentloop-${schema}`
  opened.push({ url, schema })
  const storage = new PostgresStorage(
    { connectionString: url, application_name: app, ...config },
    { schema, ...options },
  )
  storages.push(storage)
  await storage.getValue("migrate")
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  await admin.query(`
    CREATE TABLE "${schema}".audit (key bytea NOT NULL);
    CREATE FUNCTION "${schema}".audit_value() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.value LIKE '%"slow"%' THEN PERFORM pg_sleep(0.5); END IF;
        INSERT INTO "${schema}".audit (key) VALUES (NEW.key);
        RETURN NEW;
      END $$;
    CREATE TRIGGER audit AFTER INSERT OR UPDATE ON "${schema}".value
      FOR EACH ROW EXECUTE FUNCTION "${schema}".audit_value();
  `)
  await admin.end()
  return {
    storage,
    schema,
    /** How many committed writes of `key` there were. */
    async applied(key: string): Promise<number> {
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      try {
        const { rows } = await client.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM "${schema}".audit WHERE key = $1`,
          [encodeKey(key)],
        )
        return rows[0]!.n
      } finally {
        await client.end()
      }
    },
    /** How many of this storage's connections are inside a slow write now. */
    async sleeping(admin: pg.ClientBase): Promise<number> {
      const { rows } = await admin.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event = 'PgSleep'",
        [app],
      )
      return rows[0]!.n
    },
    async terminate(admin: pg.ClientBase): Promise<number> {
      const { rowCount } = await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND wait_event = 'PgSleep'",
        [app],
      )
      return rowCount ?? 0
    },
  }
}

afterAll(async () => {
  for (const storage of storages) await storage.close().catch(() => undefined)
  for (const { url, schema } of opened) {
    const client = new pg.Client({ connectionString: url })
    await client.connect().catch(() => undefined)
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined)
    await client.end().catch(() => undefined)
  }
})

describe.runIf(sharedURL)("PostgresStorage when its connections are cut", () => {
  const admin = new pg.Client({ connectionString: sharedURL })
  beforeAll(() => admin.connect())
  afterAll(() => admin.end())

  it("retries writes whose backend was terminated mid-write on a new connection, each landing once", async () => {
    const { storage, applied, sleeping, terminate } = await audited(sharedURL!, { max: 4 })
    const build = createBuilders()
    const parent = build.session()
    await storage.write([{ type: "session.put", info: parent }])
    const session = build.session({ parentID: parent.id })
    const writes = [
      // A batch (one transaction: a child session's parent chain is checked first) and a single
      // put (one autocommit statement).
      storage.write([
        { type: "session.put", info: session },
        { type: "value.put", key: "batch", value: { slow: true } },
      ]),
      storage.write([{ type: "value.put", key: "single", value: { slow: true } }]),
    ]
    await eventually(async () => (await sleeping(admin)) === 2, 10_000, "both writes to be in flight")
    expect(await terminate(admin)).toBe(2)
    await Promise.all(writes)
    expect(await applied("batch")).toBe(1)
    expect(await applied("single")).toBe(1)
    expect(await storage.getSession(session.id)).toEqual(session)
    expect(await storage.getValue("batch")).toEqual({ slow: true })
  }, 30_000)

  for (const cut of ["after-commit", "before-commit"] as const) {
    const when = cut === "after-commit" ? "after the server committed" : "before COMMIT reached the server"
    it(`applies a batch exactly once when its connection is lost ${when}, removes included`, async () => {
      const target = new URL(sharedURL!)
      const proxy = await commitCutter({ host: target.hostname, port: Number(target.port) })
      try {
        target.port = String(proxy.port)
        const { storage, applied } = await audited(target.toString())
        const build = createBuilders()
        const doomed = build.session()
        await storage.write([{ type: "session.put", info: doomed }])
        proxy.arm(cut)
        // Replayed after a commit, the remove would fail with NotFoundError; a lost rollback
        // must not lose the batch either.
        await storage.write([
          { type: "session.remove", sessionID: doomed.id },
          { type: "value.put", key: "k", value: 1 },
        ])
        expect(proxy.cuts).toBe(1)
        expect(await storage.getSession(doomed.id)).toBeUndefined()
        expect(await applied("k")).toBe(1)
      } finally {
        await proxy.close()
      }
    }, 30_000)
  }
})

describe.runIf(bin)("PostgresStorage when its server stops (a cluster of this file's own)", () => {
  let cluster: OwnCluster
  beforeAll(async () => {
    cluster = await ownCluster(bin!)
  }, 60_000)
  afterAll(() => cluster?.remove())

  it("carries writes in flight through a server restart, each landing once", async () => {
    const { storage, applied, sleeping } = await audited(cluster.url, { max: 4 })
    const admin = new pg.Client({ connectionString: cluster.url })
    await admin.connect()
    const keys = ["a", "b", "c"]
    const writes = keys.map((key) =>
      storage.write([
        { type: "value.put", key, value: { slow: true } },
        { type: "value.put", key: `${key}/plain`, value: key },
      ]),
    )
    // Sent in one turn, the three batches go as one statement (put-groups.ts): one backend.
    await eventually(async () => (await sleeping(admin)) === 1, 10_000, "the writes to be in flight")
    admin.on("error", () => undefined)
    await cluster.restart()
    await Promise.all(writes)
    for (const key of keys) {
      expect(await applied(key)).toBe(1)
      expect(await storage.getValue(`${key}/plain`)).toBe(key)
    }
  }, 60_000)

  it("waits through an outage shorter than its bound: a read and a write go through once the server is back", async () => {
    const { storage, applied } = await audited(cluster.url)
    await cluster.stop()
    const write = storage.write([{ type: "value.put", key: "during-outage", value: 1 }])
    const read = storage.getValue("during-outage")
    await cluster.start()
    await write
    expect(await read).toSatisfy((value) => value === undefined || value === 1)
    expect(await applied("during-outage")).toBe(1)
  }, 60_000)

  it("fails with a retryable StorageError of reason connection when the server stays down past its bound, and recovers", async () => {
    const { storage } = await audited(cluster.url, {}, { retry: { maxAttempts: 2, maxDelayMs: 50 } })
    await cluster.stop()
    try {
      const error = await rejection(storage.write([{ type: "value.put", key: "k", value: 1 }]))
      expect(StorageError.isInstance(error)).toBe(true)
      expect((error as StorageError).data).toMatchObject({
        reason: "connection",
        retryable: true,
        attempts: 3,
      })
      expect((error as StorageError).cause).toMatchObject({ code: "ECONNREFUSED" })
      // A storage whose very first call met the outage (its schema not yet checked) recovers too.
      const fresh = new PostgresStorage(
        { connectionString: cluster.url },
        { schema: "fresh", retry: { maxAttempts: 0, maxDelayMs: 10 } },
      )
      storages.push(fresh)
      opened.push({ url: cluster.url, schema: "fresh" })
      const first = await rejection(fresh.getValue("k"))
      expect((first as StorageError).data).toMatchObject({ reason: "connection", attempts: 1 })
      await cluster.start()
      await storage.write([{ type: "value.put", key: "k", value: 2 }])
      expect(await storage.getValue("k")).toBe(2)
      expect(await fresh.getValue("k")).toBeUndefined()
    } finally {
      await cluster.start().catch(() => undefined)
    }
  }, 60_000)
})
