import assert from "node:assert/strict"
import { InvalidInputError } from "../error/invalid-input.js"
import { NotFoundError } from "../error/not-found.js"
import { CorruptRowError } from "../storage/corrupt-row.js"
import type { Storage } from "../storage/port.js"
import { type Builders, createBuilders } from "./builders.js"

/** The two functions of a test framework the suite needs: vitest's, jest's, mocha's or node:test's. */
export type TestFramework = {
  describe: (name: string, body: () => void) => unknown
  it: (name: string, body: () => Promise<void>) => unknown
}

export type RowTarget = { kind: "session" | "message" | "part"; id: string }

export type ConformanceOptions<S extends Storage> = TestFramework & {
  /**
   * Overwrites one stored row with data that fails its schema, behind the adapter's back.
   * When given, the suite checks that reading such a row fails with a CorruptRowError naming it.
   */
  corrupt?: (storage: S, target: RowTarget) => Promise<void>
}

type Case<S extends Storage> = (storage: S, build: Builders) => Promise<void>

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
    for (const [name, body] of Object.entries(cases)) test(name, body)
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

async function expectError(
  promise: Promise<unknown>,
  type: { isInstance(value: unknown): boolean; errorName: string },
  mentions: string,
) {
  const error = await promise.then(
    () => assert.fail(`expected ${type.errorName}, but the call succeeded`),
    (caught: unknown) => caught,
  )
  assert.ok(type.isInstance(error), `expected ${type.errorName}, got ${String(error)}`)
  assert.match(String((error as Error).message), new RegExp(mentions))
}

async function seed(storage: Storage, build: Builders) {
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

const cases: Record<string, Case<Storage>> = {
  async "round-trips a session with every field"(storage, build) {
    const parent = build.session()
    const session = build.session({
      parentID: parent.id,
      time: { created: 1, updated: 2, compacting: 3, archived: 4 },
      permission: [{ permission: "edit", pattern: "src/*", action: "allow" }],
      summary: {
        additions: 3,
        deletions: 1,
        files: 1,
        diffs: [{ file: "a.ts", before: "a", after: "b", additions: 3, deletions: 1 }],
      },
      revert: {
        messageID: build.ids.ascending("message"),
        partID: build.ids.ascending("part"),
        snapshot: "s",
        diff: "d",
      },
      cost: 1.25,
      tokens: { input: 1, output: 2, reasoning: 3, cache: { read: 4, write: 5 } },
    })
    await storage.write([
      { type: "session.put", info: parent },
      { type: "session.put", info: session },
    ])
    assert.deepEqual(await storage.getSession(session.id), session)
    assert.equal(await storage.getSession(build.ids.descending("session")), undefined)
  },

  async "round-trips user and assistant messages with every field"(storage, build) {
    const session = build.session()
    const user = build.user(session.id, { system: "be brief", tools: { bash: false }, variant: "high" })
    const assistant = build.assistant(session.id, user.id, {
      time: { created: 1, completed: 2 },
      cost: 0.5,
      tokens: { input: 1, output: 2, reasoning: 3, cache: { read: 4, write: 5 } },
      finish: "stop",
      summary: true,
      error: {
        name: "APIError",
        data: { message: "bad", statusCode: 500, isRetryable: true, responseBody: "{}" },
      },
    })
    await storage.write([
      { type: "session.put", info: session },
      { type: "message.put", info: user },
      { type: "message.put", info: assistant },
    ])
    const messages = await storage.listMessages(session.id)
    assert.deepEqual(
      messages.map((message) => message.info),
      [user, assistant],
    )
  },

  async "round-trips every part type and tool state"(storage, build) {
    const { session, assistant } = await seed(storage, build)
    const parts = build.everyPart(session.id, assistant.id)
    await storage.write(parts.map((part) => ({ type: "part.put" as const, part })))
    const loaded = await storage.getMessage(session.id, assistant.id)
    assert.deepEqual(loaded, { info: assistant, parts })
  },

  async "returns messages and parts in ID order, whatever the write order"(storage, build) {
    const session = build.session()
    const messages = [build.user(session.id), build.user(session.id), build.user(session.id)]
    const parts = messages.map((message) => [
      build.text(session.id, message.id),
      build.text(session.id, message.id),
    ])
    await storage.write([{ type: "session.put", info: session }])
    for (const message of [...messages].reverse())
      await storage.write([{ type: "message.put", info: message }])
    for (const part of parts.flat().reverse()) await storage.write([{ type: "part.put", part }])
    const loaded = await storage.listMessages(session.id)
    assert.deepEqual(
      loaded.map((message) => message.info.id),
      messages.map((message) => message.id),
    )
    assert.deepEqual(
      loaded.map((message) => message.parts.map((part) => part.id)),
      parts.map((list) => list.map((part) => part.id)),
    )
  },

  async "limits a message listing to the newest messages, still oldest first"(storage, build) {
    const session = build.session()
    const messages = Array.from({ length: 5 }, () => build.user(session.id))
    await storage.write([
      { type: "session.put", info: session },
      ...messages.map((info) => ({ type: "message.put" as const, info })),
      { type: "part.put", part: build.text(session.id, messages[4]!.id) },
    ])
    const loaded = await storage.listMessages(session.id, { limit: 2 })
    assert.deepEqual(
      loaded.map((message) => message.info.id),
      [messages[3]!.id, messages[4]!.id],
    )
    assert.equal(loaded[1]!.parts.length, 1)
  },

  async "lists sessions newest first, by parent, with a limit"(storage, build) {
    const root = build.session()
    const children = [build.session({ parentID: root.id }), build.session({ parentID: root.id })]
    const other = build.session()
    await storage.write([root, ...children, other].map((info) => ({ type: "session.put" as const, info })))
    const all = await storage.listSessions()
    assert.deepEqual(
      all.map((session) => session.id),
      [other.id, children[1]!.id, children[0]!.id, root.id],
    )
    const byParent = await storage.listSessions({ parentID: root.id })
    assert.deepEqual(
      byParent.map((session) => session.id),
      [children[1]!.id, children[0]!.id],
    )
    const limited = await storage.listSessions({ limit: 1 })
    assert.deepEqual(
      limited.map((session) => session.id),
      [other.id],
    )
  },

  async "replacing a message keeps its parts; replacing a session keeps its messages"(storage, build) {
    const { session, assistant } = await seed(storage, build)
    const part = build.text(session.id, assistant.id)
    await storage.write([{ type: "part.put", part }])
    const finished = { ...assistant, finish: "stop", time: { created: assistant.time.created, completed: 5 } }
    await storage.write([
      { type: "message.put", info: finished },
      { type: "session.put", info: { ...session, title: "Renamed" } },
    ])
    assert.deepEqual(await storage.getMessage(session.id, assistant.id), { info: finished, parts: [part] })
    assert.equal((await storage.listMessages(session.id)).length, 2)
    assert.equal((await storage.getSession(session.id))?.title, "Renamed")
  },

  async "removing a session removes its messages, parts and descendant sessions"(storage, build) {
    const { session, user } = await seed(storage, build)
    const child = build.session({ parentID: session.id })
    const grandchild = build.session({ parentID: child.id })
    const sibling = build.session()
    const childMessage = build.user(child.id)
    await storage.write([
      { type: "part.put", part: build.text(session.id, user.id) },
      ...[child, grandchild, sibling].map((info) => ({ type: "session.put" as const, info })),
      { type: "message.put", info: childMessage },
      { type: "part.put", part: build.text(child.id, childMessage.id) },
    ])
    await storage.write([{ type: "session.remove", sessionID: session.id }])
    for (const id of [session.id, child.id, grandchild.id]) {
      assert.equal(await storage.getSession(id), undefined)
      await expectError(storage.listMessages(id), NotFoundError, id)
    }
    assert.deepEqual(
      (await storage.listSessions()).map((info) => info.id),
      [sibling.id],
    )
    // A new session with a removed ID starts empty: nothing of the old one lingers.
    await storage.write([{ type: "session.put", info: session }])
    assert.deepEqual(await storage.listMessages(session.id), [])
  },

  async "removing a message removes its parts; a part can be removed alone"(storage, build) {
    const { session, user, assistant } = await seed(storage, build)
    const parts = [
      build.text(session.id, user.id),
      build.text(session.id, assistant.id),
      build.text(session.id, assistant.id),
    ]
    await storage.write(parts.map((part) => ({ type: "part.put" as const, part })))
    await storage.write([{ type: "message.remove", sessionID: session.id, messageID: user.id }])
    await storage.write([
      { type: "part.remove", sessionID: session.id, messageID: assistant.id, partID: parts[1]!.id },
    ])
    const loaded = await storage.listMessages(session.id)
    assert.deepEqual(loaded, [{ info: assistant, parts: [parts[2]] }])
  },

  async "concurrent writes to different parts of one message all land"(storage, build) {
    const { session, assistant } = await seed(storage, build)
    const parts = Array.from({ length: 20 }, (_, index) =>
      build.text(session.id, assistant.id, `part ${index}`),
    )
    await Promise.all(parts.map((part) => storage.write([{ type: "part.put", part }])))
    const updated = parts.map((part) => ({ ...part, text: `${part.type === "text" ? part.text : ""} done` }))
    await Promise.all(updated.map((part) => storage.write([{ type: "part.put", part }])))
    assert.deepEqual((await storage.getMessage(session.id, assistant.id))?.parts, updated)
  },

  async "a missing session or message gives a NotFoundError naming the ID"(storage, build) {
    const absent = build.session()
    await expectError(storage.listMessages(absent.id), NotFoundError, absent.id)
    await expectError(storage.getMessage(absent.id, build.ids.ascending("message")), NotFoundError, absent.id)
    await expectError(
      storage.write([{ type: "message.put", info: build.user(absent.id) }]),
      NotFoundError,
      absent.id,
    )
    await expectError(
      storage.write([{ type: "session.put", info: build.session({ parentID: absent.id }) }]),
      NotFoundError,
      absent.id,
    )
    await expectError(
      storage.write([{ type: "session.remove", sessionID: absent.id }]),
      NotFoundError,
      absent.id,
    )
    const { session } = await seed(storage, build)
    const messageID = build.ids.ascending("message")
    await expectError(
      storage.write([{ type: "part.put", part: build.text(session.id, messageID) }]),
      NotFoundError,
      messageID,
    )
    await expectError(
      storage.write([{ type: "message.remove", sessionID: session.id, messageID }]),
      NotFoundError,
      messageID,
    )
    assert.equal(await storage.getMessage(session.id, messageID), undefined)
  },

  async "a batch that fails part way writes nothing"(storage, build) {
    const { session, user } = await seed(storage, build)
    const newSession = build.session()
    const part = build.text(session.id, user.id)
    const missing = build.ids.ascending("message")
    await expectError(
      storage.write([
        { type: "session.put", info: newSession },
        { type: "part.put", part },
        { type: "value.put", key: "k", value: 1 },
        { type: "message.remove", sessionID: session.id, messageID: user.id },
        { type: "part.put", part: build.text(session.id, missing) },
      ]),
      NotFoundError,
      missing,
    )
    assert.equal(await storage.getSession(newSession.id), undefined)
    assert.deepEqual(await storage.getMessage(session.id, user.id), { info: user, parts: [] })
    assert.equal(await storage.getValue("k"), undefined)
  },

  async "a row that fails its schema is refused with an error naming it, and nothing is written"(
    storage,
    build,
  ) {
    const { session, user } = await seed(storage, build)
    const good = build.text(session.id, user.id)
    const bad = { ...build.text(session.id, user.id), type: "text", text: 42 } as unknown as typeof good
    await expectError(
      storage.write([
        { type: "part.put", part: good },
        { type: "part.put", part: bad },
      ]),
      InvalidInputError,
      bad.id,
    )
    assert.deepEqual((await storage.getMessage(session.id, user.id))?.parts, [])
  },

  async "stores, lists and removes side values"(storage) {
    await storage.write([
      { type: "value.put", key: "todo/ses_b", value: [{ id: "1" }] },
      { type: "value.put", key: "todo/ses_a", value: { nested: { list: [1, 2], flag: true, none: null } } },
      { type: "value.put", key: "approval/x", value: "yes" },
    ])
    assert.deepEqual(await storage.getValue("todo/ses_a"), {
      nested: { list: [1, 2], flag: true, none: null },
    })
    assert.deepEqual(await storage.listValues("todo/"), [
      { key: "todo/ses_a", value: { nested: { list: [1, 2], flag: true, none: null } } },
      { key: "todo/ses_b", value: [{ id: "1" }] },
    ])
    await storage.write([
      { type: "value.remove", key: "todo/ses_a" },
      { type: "value.remove", key: "never/written" },
    ])
    assert.equal(await storage.getValue("todo/ses_a"), undefined)
    assert.deepEqual(
      (await storage.listValues("")).map((entry) => entry.key),
      ["approval/x", "todo/ses_b"],
    )
  },

  async "refuses a side value that is not JSON, writing nothing"(storage) {
    for (const value of [undefined, Number.NaN, () => 1, { nested: 10n }]) {
      await expectError(
        storage.write([
          { type: "value.put", key: "ok", value: 1 },
          { type: "value.put", key: "bad", value },
        ]),
        InvalidInputError,
        "bad",
      )
    }
    assert.deepEqual(await storage.listValues(""), [])
  },

  async "returned objects are copies the caller may change"(storage, build) {
    const { session, user } = await seed(storage, build)
    const part = build.text(session.id, user.id)
    await storage.write([{ type: "part.put", part }])
    const loaded = await storage.getMessage(session.id, user.id)
    loaded!.parts.push(build.text(session.id, user.id))
    loaded!.info.agent = "changed"
    const info = await storage.getSession(session.id)
    info!.title = "changed"
    assert.deepEqual(await storage.getMessage(session.id, user.id), { info: user, parts: [part] })
    assert.equal((await storage.getSession(session.id))?.title, session.title)
  },
}
