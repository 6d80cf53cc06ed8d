import assert from "node:assert/strict"
import { InvalidInputError } from "../error/invalid-input.js"
import { NotFoundError } from "../error/not-found.js"
import { type Case, expectError, seed } from "./conformance-helpers.js"

/** Replacing, cascades, atomic batches, refused writes, side values and copies. */
export const writeCases: Record<string, Case> = {
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
