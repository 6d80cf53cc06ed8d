import assert from "node:assert/strict"
import type { StorageWrite } from "../storage/port.js"
import { StorageError } from "../storage/storage-error.js"
import { type Case, seed } from "./conformance-helpers.js"

/** What retries and shutdown rely on: puts that can run twice, and a close() that says so. */
export const lifecycleCases: Record<string, Case> = {
  async "writing a batch of puts again leaves what the first write left (a retry may replay it)"(
    storage,
    build,
  ) {
    const { session, user } = await seed(storage, build)
    const child = build.session({ parentID: session.id })
    const reply = build.assistant(session.id, user.id)
    const batch: StorageWrite[] = [
      { type: "session.put", info: child },
      { type: "message.put", info: reply },
      { type: "part.put", part: build.text(session.id, reply.id) },
      { type: "value.put", key: "replayed", value: { times: 1 } },
      { type: "value.remove", key: "never-there" },
    ]
    const snapshot = async () => ({
      sessions: await storage.listSessions(),
      messages: await storage.listMessages(session.id),
      values: await storage.listValues(""),
    })
    await storage.write(batch)
    const once = await snapshot()
    await storage.write(batch)
    assert.deepEqual(await snapshot(), once)
  },

  async "after close(), calls fail with a StorageError of reason closed, and closing again is harmless"(
    storage,
    build,
  ) {
    const { session, user } = await seed(storage, build)
    await storage.close()
    await storage.close()
    const calls: Record<string, () => Promise<unknown>> = {
      getSession: () => storage.getSession(session.id),
      listSessions: () => storage.listSessions(),
      getMessage: () => storage.getMessage(session.id, user.id),
      listMessages: () => storage.listMessages(session.id),
      getValue: () => storage.getValue("k"),
      listValues: () => storage.listValues(""),
      write: () => storage.write([{ type: "value.put", key: "after-close", value: 1 }]),
    }
    const outcomes = await Promise.all(
      Object.entries(calls).map(async ([name, call]) => ({
        name,
        error: await call().then(
          () => undefined,
          (error: unknown) => error ?? new Error("rejected with nothing"),
        ),
      })),
    )
    // A storage whose close() ends nothing (MemoryStorage: the memory lives as long as the
    // object) keeps working; any other fails every call the same way.
    if (outcomes.every((outcome) => outcome.error === undefined)) return
    for (const { name, error } of outcomes) {
      assert.ok(
        StorageError.isInstance(error) && error.data.reason === "closed" && !error.data.retryable,
        `${name}() after close(): expected a StorageError of reason "closed", got ${String(error ?? "success")}`,
      )
    }
  },
}
