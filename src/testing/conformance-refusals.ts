import assert from "node:assert/strict"
import { InvalidInputError } from "../error/invalid-input.js"
import type { Part } from "../message/part.js"
import type { SessionInfo } from "../schema/session.js"
import type { StorageWrite } from "../storage/port.js"
import { type Case, expectError, seed } from "./conformance-helpers.js"

const puts = (infos: readonly SessionInfo[]) => infos.map((info) => ({ type: "session.put" as const, info }))

/** Writes that would leave storage in a shape its readers cannot handle. */
export const refusalCases: Record<string, Case> = {
  async "refuses a session whose parent chain leads back to itself, writing nothing"(storage, build) {
    const root = build.session()
    const child = build.session({ parentID: root.id })
    const grandchild = build.session({ parentID: child.id })
    await storage.write(puts([root, child, grandchild]))
    const stranger = build.session()
    const cycles: [SessionInfo[], string][] = [
      [[{ ...root, parentID: root.id }], root.id],
      [[{ ...root, parentID: grandchild.id }], root.id],
      // A cycle closed within one batch, by its last write.
      [[stranger, { ...root, parentID: stranger.id }, { ...stranger, parentID: root.id }], stranger.id],
    ]
    for (const [batch, closer] of cycles)
      await expectError(storage.write(puts(batch)), InvalidInputError, closer)
    assert.deepEqual(await storage.listSessions(), [grandchild, child, root])
  },

  async "refuses a batch that is not an array of writes, writing nothing"(storage) {
    for (const batch of [null, undefined, "abc", 42, { type: "value.put", key: "k", value: 1 }]) {
      await expectError(storage.write(batch as unknown as StorageWrite[]), InvalidInputError, "writes")
    }
    assert.deepEqual(await storage.listValues(""), [])
  },

  async "refuses a write of unknown type or with a missing or non-string key or ID, writing nothing"(
    storage,
    build,
  ) {
    const { session, user } = await seed(storage, build)
    const malformed: [unknown, string][] = [
      [null, "writes[1]"],
      ["value.put", "writes[1]"],
      [{ type: "session.upsert", info: session }, "writes[1].type"],
      [{ key: "k", value: 1 }, "writes[1].type"],
      [{ type: "value.put", key: 5, value: 1 }, "writes[1].key"],
      [{ type: "value.put", value: 1 }, "writes[1].key"],
      [{ type: "value.remove", key: { toString: () => "k" } }, "writes[1].key"],
      [{ type: "session.remove", sessionID: { id: session.id } }, "writes[1].sessionID"],
      [{ type: "message.remove", sessionID: session.id, messageID: 7 }, "writes[1].messageID"],
      [{ type: "part.remove", sessionID: session.id, messageID: user.id }, "writes[1].partID"],
    ]
    for (const [write, path] of malformed) {
      const batch = [{ type: "value.put", key: "written", value: 1 }, write] as StorageWrite[]
      await expectError(storage.write(batch), InvalidInputError, path)
    }
    // Nothing landed, and nothing poisons later reads.
    assert.deepEqual(await storage.listValues(""), [])
    assert.deepEqual(await storage.listSessions(), [session])
    assert.deepEqual(await storage.getMessage(session.id, user.id), { info: user, parts: [] })
  },

  async "refuses a row or value JSON cannot encode (a BigInt, a cycle), writing nothing"(storage, build) {
    const { session, user } = await seed(storage, build)
    const circular: Record<string, unknown> = {}
    circular.self = circular
    const text = build.text(session.id, user.id)
    const unencodable: [StorageWrite, string][] = [
      [
        { type: "part.put", part: { ...text, metadata: { size: 10n } } as Part },
        "writes[1].part.metadata.size",
      ],
      [
        { type: "part.put", part: { ...text, metadata: { circular } } as Part },
        "writes[1].part.metadata.circular",
      ],
      [{ type: "value.put", key: "v", value: circular }, "writes[1].value.self"],
    ]
    for (const [write, path] of unencodable) {
      const batch: StorageWrite[] = [{ type: "value.put", key: "written", value: 1 }, write]
      await expectError(storage.write(batch), InvalidInputError, path)
    }
    assert.deepEqual(await storage.listValues(""), [])
    assert.deepEqual(await storage.getMessage(session.id, user.id), { info: user, parts: [] })
  },

  async "refuses a read whose ID or key is not a string"(storage, build) {
    const { session, user } = await seed(storage, build)
    const bad = { id: session.id } as unknown as string
    const reads: [() => Promise<unknown>, string][] = [
      [() => storage.getSession(bad), "sessionID"],
      [() => storage.getMessage(bad, user.id), "sessionID"],
      [() => storage.getMessage(session.id, bad), "messageID"],
      [() => storage.listMessages(bad), "sessionID"],
      [() => storage.listSessions({ parentID: bad }), "parentID"],
      [() => storage.getValue(bad), "key"],
      [() => storage.listValues(bad), "prefix"],
    ]
    for (const [read, field] of reads) await expectError(read(), InvalidInputError, field)
  },
}
