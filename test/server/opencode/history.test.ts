import { describe, expect, it, vi } from "vitest"
import { z } from "zod"
import { MemoryStorage, Tool } from "../../../src/index.js"
import { say, type Turn } from "../../../src/testing/index.js"
import { fakeSnapshot } from "../../snapshot/fake-snapshot.js"
import { answer, refusal, startServer, textOf } from "./helpers.js"

const twoTurns: Turn[] = [[say.text("First answer")], [say.text("Second answer")]]

/** A session holding two turns, prompted through the v2 client: four messages, oldest first. */
async function twoTurnSession(options: Parameters<typeof startServer>[0] = { turns: twoTurns }) {
  const context = await startServer(options)
  const { id } = await answer("session.create", context.v2.session.create({}))
  for (const text of ["first", "second"])
    await answer(
      "session.prompt",
      context.v2.session.prompt({ sessionID: id, parts: [{ type: "text", text }] }),
    )
  return { ...context, id }
}

describe("history through OpenCode's SDK clients", () => {
  it("session.messages answers every message, or the last `limit` with a cursor to the ones before", async () => {
    const { v2, older, id } = await twoTurnSession()
    const all = await answer("session.messages", v2.session.messages({ sessionID: id }))
    expect(all.map((message) => message.info.role)).toEqual(["user", "assistant", "user", "assistant"])
    expect(all.map(textOf)).toEqual(["first", "First answer", "second", "Second answer"])
    expect(await answer("session.messages", older.session.messages({ path: { id } }))).toEqual(all)

    // OpenCode pages backwards: the newest `limit` messages, and X-Next-Cursor (an opaque `before`) when older ones remain.
    const last = await v2.session.messages({ sessionID: id, limit: 2 })
    expect(await answer("session.messages", Promise.resolve(last))).toEqual(all.slice(2))
    const before = last.response.headers.get("x-next-cursor")
    expect(before).toEqual(expect.any(String))
    const earlier = await v2.session.messages({ sessionID: id, limit: 2, before: before! })
    expect(await answer("session.messages", Promise.resolve(earlier))).toEqual(all.slice(0, 2))
    expect(earlier.response.headers.get("x-next-cursor")).toBeNull()
    expect(
      await answer("session.messages", older.session.messages({ path: { id }, query: { limit: 1 } })),
    ).toEqual(all.slice(3))
  })

  it("session.message answers one message by its ID, and 404 for an unknown one", async () => {
    const { v2, older, id } = await twoTurnSession()
    const all = await answer("session.messages", v2.session.messages({ sessionID: id }))
    for (const message of all)
      expect(
        await answer("session.message", v2.session.message({ sessionID: id, messageID: message.info.id })),
      ).toEqual(message)
    const assistant = all[1]!
    expect(
      await answer("session.message", older.session.message({ path: { id, messageID: assistant.info.id } })),
    ).toEqual(assistant)
    const unknown = await refusal(v2.session.message({ sessionID: id, messageID: `msg_${"0".repeat(26)}` }))
    expect(unknown.status).toBe(404)
  })

  it("session.message reads the one message, not the session's whole history", async () => {
    const storage = new MemoryStorage()
    const listings = vi.spyOn(storage, "listMessages")
    const { v2, id } = await twoTurnSession({ turns: twoTurns, storage })
    const [, answered] = await storage.listMessages(id)
    listings.mockClear()
    expect(
      await answer("session.message", v2.session.message({ sessionID: id, messageID: answered!.info.id })),
    ).toMatchObject({ info: { id: answered!.info.id, role: "assistant" } })
    expect(listings).not.toHaveBeenCalled()
  })

  it("session.fork from a message copies the messages before it", async () => {
    const { v2, id } = await twoTurnSession()
    const all = await answer("session.messages", v2.session.messages({ sessionID: id }))
    const fork = await answer("session.fork", v2.session.fork({ sessionID: id, messageID: all[2]!.info.id }))
    const copied = await answer("session.messages", v2.session.messages({ sessionID: fork.id }))
    expect(copied.map(textOf)).toEqual(["first", "First answer"])
  })

  it("session.todo answers the session's todo list", async () => {
    const todos = [{ id: "1", content: "Write the tests", status: "in_progress", priority: "high" }]
    const { v2, older, id } = await twoTurnSession({
      todos: true,
      turns: [[say.toolCall("todowrite", { todos })], [say.text("Planned")], [say.text("Second answer")]],
    })
    const list = await answer("session.todo", v2.session.todo({ sessionID: id }))
    expect(list).toEqual([expect.objectContaining({ content: "Write the tests", status: "in_progress" })])
    expect(await answer("session.todo", older.session.todo({ path: { id } }))).toEqual(list)
  })
})

describe("file changes through OpenCode's SDK clients", () => {
  function withFiles() {
    const fake = fakeSnapshot()
    const put = Tool.define("put", {
      description: "Writes a file",
      parameters: z.object({ file: z.string(), text: z.string() }),
      async execute({ file, text }) {
        fake.files.set(file, text)
        return { title: file, output: "done", metadata: {} }
      },
    })
    const turns: Turn[] = [
      [say.toolCall("put", { file: "a.txt", text: "one" })],
      [say.text("Wrote it")],
      [say.toolCall("put", { file: "a.txt", text: "two" })],
      [say.text("Rewrote it")],
    ]
    return { fake, options: { tools: [put], snapshot: fake.snapshot, turns } }
  }

  it("session.diff answers OpenCode's file diffs: file, patch, status, additions, deletions", async () => {
    const { options } = withFiles()
    const { v2, older, id } = await twoTurnSession(options)
    const diffs = await answer("session.diff", v2.session.diff({ sessionID: id }))
    expect(diffs).toEqual([
      { file: "a.txt", patch: expect.stringContaining("+two"), status: "added", additions: 1, deletions: 0 },
    ])
    const users = (await answer("session.messages", v2.session.messages({ sessionID: id }))).filter(
      (message) => message.info.role === "user",
    )
    const second = await answer(
      "session.diff",
      v2.session.diff({ sessionID: id, messageID: users[1]!.info.id }),
    )
    expect(second).toEqual([expect.objectContaining({ file: "a.txt", status: "modified" })])
    expect(second[0]!.patch).toContain("-one")
    expect(await answer("session.diff", older.session.diff({ path: { id } }))).toEqual(diffs)
  })

  it("session.revert puts the files back, session.unrevert brings them back", async () => {
    const { fake, options } = withFiles()
    const { v2, older, id } = await twoTurnSession(options)
    const users = (await answer("session.messages", v2.session.messages({ sessionID: id }))).filter(
      (message) => message.info.role === "user",
    )
    const messageID = users[1]!.info.id
    const reverted = await answer("session.revert", v2.session.revert({ sessionID: id, messageID }))
    expect(reverted.revert).toMatchObject({ messageID })
    expect(fake.files.get("a.txt")).toBe("one")
    const restored = await answer("session.unrevert", v2.session.unrevert({ sessionID: id }))
    expect(restored.revert).toBeUndefined()
    expect(fake.files.get("a.txt")).toBe("two")

    await answer("session.revert", older.session.revert({ path: { id }, body: { messageID } }))
    await answer("session.unrevert", older.session.unrevert({ path: { id } }))
    expect(fake.files.get("a.txt")).toBe("two")
  })
})
