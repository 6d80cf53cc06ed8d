import { describe, expect, it } from "vitest"
import type { CoordinatorMessage } from "../../src/coordination/port.js"
import { envelopeText, ownPrefix } from "../../src/storage/postgres/outbox.js"

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
