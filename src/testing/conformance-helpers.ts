import assert from "node:assert/strict"
import type { Storage } from "../storage/port.js"
import type { Builders } from "./builders.js"

export type Case<S extends Storage = Storage> = (storage: S, build: Builders) => Promise<void>

/** Asserts that `promise` rejects with a named error whose message mentions `mentions`. */
export async function expectError(
  promise: Promise<unknown>,
  type: { isInstance(value: unknown): boolean; errorName: string },
  mentions: string,
) {
  const error = await promise.then(
    () => assert.fail(`expected ${type.errorName}, but the call succeeded`),
    (caught: unknown) => caught,
  )
  assert.ok(type.isInstance(error), `expected ${type.errorName}, got ${String(error)}`)
  const message = String((error as Error).message)
  assert.ok(message.includes(mentions), `expected the message to mention ${mentions}: ${message}`)
}

/** A session with a user message and the assistant message answering it. */
export async function seed(storage: Storage, build: Builders) {
  const session = build.session()
  const user = build.user(session.id)
  const assistant = build.assistant(session.id, user.id)
  await storage.write([
    { type: "session.put", info: session },
    { type: "message.put", info: user },
    { type: "message.put", info: assistant },
  ])
  return { session, user, assistant }
}
