import { randomBytes } from "node:crypto"
import type pg from "pg"
import { expect, it } from "vitest"
import { PostgresStorage } from "../../src/storage/postgres/index.js"
import { createTestRuntime, say } from "../../src/testing/index.js"
import { postgresSuite } from "./pg-suite.js"

const { url, suite, dropAfter } = postgresSuite()

suite("PostgresStorage's connections and their 'error' events", () => {
  // A backend terminated just as its connection is handed out: the server's FATAL message can be
  // read in the same packet as the connection's first ReadyForQuery, after the pool stopped
  // listening and before the storage's code runs. The pool's `verify` hook runs in that window.
  it("lets no connection's error crash the process, even one the pool no longer listens to", async () => {
    const schema = `c_${randomBytes(6).toString("hex")}`
    dropAfter(schema)
    const errors: string[] = []
    const verify = (client: pg.PoolClient, done: (error?: Error) => void) => {
      errors.push(`listeners ${client.listenerCount("error")}`)
      client.emit("error", new Error("terminating connection due to administrator command"))
      done()
    }
    const storage = new PostgresStorage({ connectionString: url, max: 2, verify } as pg.PoolConfig, {
      schema,
    })
    const { runtime } = createTestRuntime({ storage, coordinator: false, turns: [[say.text("Hi")]] })
    const session = await runtime.session.create()
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "hello" }] })
    expect(await storage.getSession(session.id)).toMatchObject({ id: session.id })
    expect(errors.length).toBeGreaterThan(0)
    expect(errors.every((line) => line !== "listeners 0")).toBe(true)
    await runtime.close()
    await storage.close()
  })
})
