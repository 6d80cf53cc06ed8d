import { CorruptRowError } from "../storage/corrupt-row.js"
import type { Storage } from "../storage/port.js"
import { createBuilders } from "./builders.js"
import { type Case, expectError } from "./conformance-helpers.js"
import { lifecycleCases } from "./conformance-lifecycle.js"
import { refusalCases } from "./conformance-refusals.js"
import { rowCases } from "./conformance-rows.js"
import { writeCases } from "./conformance-writes.js"

/** The two functions of a test framework the suite needs: vitest's, jest's, mocha's or node:test's. */
export type TestFramework = {
  describe: (name: string, body: () => void) => unknown
  it: (name: string, body: () => Promise<void>) => unknown
}

/** The stored row `ConformanceOptions.corrupt` must overwrite: its kind and ID. */
export type RowTarget = { kind: "session" | "message" | "part"; id: string }

/**
 * The second argument of `storageConformance`: the test framework's `describe` and `it`, and
 * optionally `corrupt`, which adds the case for rows that fail their schema.
 */
export type ConformanceOptions<S extends Storage> = TestFramework & {
  /**
   * Overwrites one stored row with data that fails its schema, behind the adapter's back.
   * When given, the suite checks that reading such a row fails with a CorruptRowError naming it.
   */
  corrupt?: (storage: S, target: RowTarget) => Promise<void>
}

/**
 * The Storage contract (see `Storage` in agentloop) as a test suite. Each case gets a fresh
 * storage from `makeStorage` and closes it afterwards.
 */
export function storageConformance<S extends Storage>(
  makeStorage: () => S | Promise<S>,
  options: ConformanceOptions<S>,
): void {
  const { describe, it } = options
  const test = (name: string, body: Case<S>) =>
    it(name, async () => {
      const storage = await makeStorage()
      try {
        await body(storage, createBuilders())
      } finally {
        await storage.close()
      }
    })

  describe("storage conformance", () => {
    for (const [name, body] of Object.entries({
      ...rowCases,
      ...writeCases,
      ...refusalCases,
      ...lifecycleCases,
    }))
      test(name, body)
    const corrupt = options.corrupt
    if (corrupt) {
      test("reading a row that fails its schema gives a CorruptRowError naming the row", async (storage, build) => {
        const session = build.session()
        const message = build.user(session.id)
        const part = build.text(session.id, message.id)
        await storage.write([
          { type: "session.put", info: session },
          { type: "message.put", info: message },
          { type: "part.put", part },
        ])
        await corrupt(storage, { kind: "part", id: part.id })
        await expectError(storage.listMessages(session.id), CorruptRowError, part.id)
        await corrupt(storage, { kind: "message", id: message.id })
        await expectError(storage.getMessage(session.id, message.id), CorruptRowError, message.id)
        await corrupt(storage, { kind: "session", id: session.id })
        await expectError(storage.getSession(session.id), CorruptRowError, session.id)
      })
    }
  })
}
