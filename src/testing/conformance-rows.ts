import assert from "node:assert/strict"
import { type Case, seed } from "./conformance-helpers.js"

/** Round trips, ordering and listing. */
export const rowCases: Record<string, Case> = {
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

  async "keeps NUL and lone surrogates in the text of rows and values"(storage, build) {
    // Model output can hold both; PostgreSQL's jsonb and text refuse them as they are.
    const odd = "a\u0000b\ud800c\udc00x\ud83d"
    const session = build.session({ title: odd })
    const message = build.user(session.id, { system: odd })
    const part = { ...build.text(session.id, message.id), text: odd }
    await storage.write([
      { type: "session.put", info: session },
      { type: "message.put", info: message },
      { type: "part.put", part },
      { type: "value.put", key: "odd", value: { odd, list: [odd] } },
    ])
    assert.deepEqual(await storage.getSession(session.id), session)
    assert.deepEqual(await storage.getMessage(session.id, message.id), { info: message, parts: [part] })
    assert.deepEqual(await storage.listMessages(session.id), [{ info: message, parts: [part] }])
    assert.deepEqual(await storage.getValue("odd"), { odd, list: [odd] })
    assert.deepEqual(await storage.listValues("od"), [{ key: "odd", value: { odd, list: [odd] } }])
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
}
