import type pg from "pg"
import { afterEach, describe, expect, it, vi } from "vitest"
import type { CoordinatorMessage } from "../../src/coordination/port.js"
import { createOutbox, type Envelope, envelopeText, ownPrefix } from "../../src/storage/postgres/outbox.js"

describe("PostgresCoordinator envelopes", () => {
  const messages: CoordinatorMessage[] = [
    { type: "cancel", sessionID: "ses_1" },
    { type: "prompt", sessionID: "ses_2", messageID: "msg_1" },
  ]

  it("writes an envelope as JSON.stringify does, from the messages' own JSON", () => {
    for (const origin of ["5f0c6c1e-8d1b-4a52-9d7e-0a4b1f2c3d4e", 'odd "origin" \\ \u2028'])
      for (const seq of [undefined, 1, 123_456]) {
        const text = envelopeText(origin, seq, JSON.stringify(messages))
        expect(text).toBe(
          JSON.stringify(seq === undefined ? { origin, messages } : { origin, seq, messages }),
        )
        expect(text.startsWith(ownPrefix(origin))).toBe(true)
        expect(text.startsWith(ownPrefix(`${origin}x`))).toBe(false)
      }
  })
})

/** An outbox on a pool that records its NOTIFYs and answers at once. */
function recordingOutbox() {
  const notified: Envelope[] = []
  const pool = {
    async query(config: string | pg.QueryConfig) {
      if (typeof config !== "string" && config.text.includes("pg_notify"))
        notified.push(
          config.name === "publish-ref"
            ? { origin: "o", ref: "stored" }
            : (JSON.parse(String(config.values![1])) as Envelope),
        )
      return { rows: [] }
    },
  } as unknown as pg.Pool
  const outbox = createOutbox({
    pool,
    channel: "c",
    origin: "o",
    table: "t",
    ready: async () => {},
    name: (statement) => statement,
  })
  const sessions = () => notified.map((envelope) => envelope.messages?.map(sessionOf) ?? [envelope.ref])
  return { outbox, notified, sessions }
}

const prompt = (sessionID: string, size = 0): CoordinatorMessage => ({
  type: "prompt",
  sessionID,
  messageID: `msg_${"x".repeat(size)}`,
})

function sessionOf(message: CoordinatorMessage): string {
  return "sessionID" in message ? message.sessionID : "?"
}

describe("PostgresCoordinator outbox", () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it("groups the messages published in the few milliseconds after a send into one NOTIFY", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "setImmediate", "performance"] })
    const { outbox, sessions } = recordingOutbox()
    const first = outbox.publish(prompt("a"))
    await vi.advanceTimersByTimeAsync(0)
    await first
    // A step's events come a write apart: here a millisecond.
    for (const sessionID of ["b", "c", "d"]) {
      void outbox.publish(prompt(sessionID))
      await vi.advanceTimersByTimeAsync(1)
    }
    await vi.advanceTimersByTimeAsync(10)
    await outbox.drain()
    expect(sessions()).toEqual([["a"], ["b", "c", "d"]])
  })

  it("cuts a batch before it outgrows a NOTIFY, so that short messages never go by reference", async () => {
    const { outbox, notified, sessions } = recordingOutbox()
    const ids = Array.from({ length: 12 }, (_, index) => `s${index}`)
    await Promise.all(ids.map((sessionID) => outbox.publish(prompt(sessionID, 1_000))))
    expect(notified.length).toBeGreaterThan(1)
    expect(notified.every((envelope) => envelope.messages !== undefined)).toBe(true)
    expect(sessions().flat()).toEqual(ids)
  })

  it("refuses a message JSON cannot encode alone: the others of its batch still go", async () => {
    const { outbox, sessions } = recordingOutbox()
    const odd = { ...prompt("odd"), size: 1n } as unknown as CoordinatorMessage
    const results = await Promise.allSettled([
      outbox.publish(prompt("a")),
      outbox.publish(prompt("b")),
      outbox.publish(odd),
      outbox.publish(prompt("c")),
    ])
    expect(results.map((result) => result.status)).toEqual([
      "fulfilled",
      "fulfilled",
      "rejected",
      "fulfilled",
    ])
    expect(sessions().flat()).toEqual(["a", "b", "c"])
  })
})
