import { randomBytes } from "node:crypto"
import pg from "pg"
import { expect, it } from "vitest"
import type { Event, Permission } from "../../src/index.js"
import { PostgresStorage } from "../../src/storage/postgres/index.js"
import { createTestRuntime, say } from "../../src/testing/index.js"
import { until } from "./fault-helpers.js"
import { connectionGate } from "./pg-faults-helpers.js"
import { postgresSuite } from "./pg-suite.js"

const { url, suite, dropAfter } = postgresSuite()

const ask: Permission.Rule[] = [{ permission: "*", pattern: "*", action: "ask" }]

suite("PostgresCoordinator's listening connection", () => {
  it("after it is terminated and reconnects, the runtime receives the events published meanwhile", async () => {
    const schema = `l_${randomBytes(6).toString("hex")}`
    dropAfter(schema)
    const server = new URL(url!)
    const gate = await connectionGate({ host: server.hostname, port: Number(server.port) })
    const gated = new URL(url!)
    gated.port = String(gate.port)
    const name = `listener_${randomBytes(4).toString("hex")}`
    const aStorage = new PostgresStorage({ connectionString: url }, { schema })
    const a = createTestRuntime({ storage: aStorage, turns: [[say.text("said while you were away")]] })
    // B reaches the server through the gate; its connections are told apart by their name.
    const bStorage = new PostgresStorage({ connectionString: gated.href, application_name: name }, { schema })
    const b = createTestRuntime({ storage: bStorage })
    await Promise.all([aStorage.coordinator.listening(), bStorage.coordinator.listening()])
    const seen: Event[] = []
    b.runtime.events.onAny((event) => {
      seen.push(event)
    })

    // B's listening connection is cut, and its reconnection waits at the gate.
    const waiting = gate.hold()
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    const { rows } = await admin.query(
      `SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity
       WHERE application_name = $1 AND query LIKE 'LISTEN%'`,
      [name],
    )
    expect(rows).toEqual([{ done: true }])
    await waiting
    const session = await a.runtime.session.create({})
    const answer = await a.runtime.session.prompt({
      sessionID: session.id,
      parts: [{ type: "text", text: "hi" }],
    })
    const asked = new Promise((resolve) => a.runtime.events.on("permission.asked", resolve))
    const asking = a.runtime.permission.ask({
      sessionID: session.id,
      permission: "edit",
      patterns: ["a.ts"],
      ruleset: ask,
    })
    asking.catch(() => undefined)
    await asked
    // Whatever A published has gone out before B can listen again.
    await a.runtime.close()
    gate.open()

    const parts = () =>
      seen.flatMap((event) =>
        event.type === "message.part.updated" && event.properties.part.type === "text"
          ? [event.properties.part.text]
          : [],
      )
    // The last event A published; what B reads back comes in the order it was sent.
    await until(
      () => seen.some((event) => event.type === "permission.asked"),
      10_000,
      "the events published while B's listener was down",
    )
    expect(parts()).toContain("said while you were away")
    const updated = seen.flatMap((event) =>
      event.type === "message.updated" ? [event.properties.info.id] : [],
    )
    expect(updated).toContain(answer.info.id)
    const types = new Set(seen.map((event) => event.type))
    expect([...types]).toEqual(expect.arrayContaining(["session.created", "session.status", "session.idle"]))
    // Streamed deltas are never stored: a listener that was down goes without them.
    expect(types.has("message.part.delta")).toBe(false)
    await admin.end()
    await b.runtime.close()
    await gate.close()
  }, 30_000)
})
