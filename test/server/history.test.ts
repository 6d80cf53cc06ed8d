import { describe, expect, it } from "vitest"
import { z } from "zod"
import { type MessageV2, Tool } from "../../src/index.js"
import { say, type Turn } from "../../src/testing/index.js"
import { fakeSnapshot } from "../snapshot/fake-snapshot.js"
import { nextEvent, setup, text, unknownMessageID, unknownSessionID } from "./helpers.js"

function withFiles(turns: Turn[]) {
  const fake = fakeSnapshot()
  const put = Tool.define("put", {
    description: "Writes a file",
    parameters: z.object({ file: z.string(), text: z.string() }),
    async execute({ file, text: content }) {
      fake.files.set(file, content)
      return { title: file, output: "done", metadata: {} }
    },
  })
  return { fake, ...setup({ turns, tools: [put], snapshot: fake.snapshot }) }
}

const twoTurns = [
  [say.toolCall("put", { file: "a", text: "1" })],
  [say.text("one")],
  [say.toolCall("put", { file: "a", text: "2" })],
  [say.text("two")],
]

async function promptTwice(context: ReturnType<typeof withFiles>) {
  const id = await context.newSession()
  await context.call("POST", `/session/${id}/message`, text("first"))
  await context.call("POST", `/session/${id}/message`, text("second"))
  const messages = (await context.call("GET", `/session/${id}/message`)).body as MessageV2.WithParts[]
  const users = messages.filter((message) => message.info.role === "user")
  return { id, users }
}

describe("revert, unrevert and diff routes", () => {
  it("POST /revert puts the files back, POST /unrevert brings them back", async () => {
    const context = withFiles(twoTurns)
    const { id, users } = await promptTwice(context)
    expect(context.fake.files.get("a")).toBe("2")
    const reverted = await context.call("POST", `/session/${id}/revert`, { messageID: users[1]!.info.id })
    expect(reverted).toMatchObject({ status: 200, body: { id, revert: { messageID: users[1]!.info.id } } })
    expect(context.fake.files.get("a")).toBe("1")
    const restored = await context.call("POST", `/session/${id}/unrevert`)
    expect(restored.status).toBe(200)
    expect((restored.body as { revert?: unknown }).revert).toBeUndefined()
    expect(context.fake.files.get("a")).toBe("2")
  })

  it("POST /revert answers 400 naming the field, and 404 for unknown sessions and messages", async () => {
    const context = withFiles(twoTurns)
    const { id } = await promptTwice(context)
    const missing = await context.call("POST", `/session/${id}/revert`, {})
    expect(missing.status).toBe(400)
    expect(JSON.stringify(missing.body)).toContain('"path":"messageID"')
    const badPart = await context.call("POST", `/session/${id}/revert`, {
      messageID: unknownMessageID,
      partID: "x",
    })
    expect(JSON.stringify(badPart.body)).toContain('"path":"partID"')
    const unknownMessage = await context.call("POST", `/session/${id}/revert`, {
      messageID: unknownMessageID,
    })
    expect(unknownMessage).toMatchObject({ status: 404, body: { name: "NotFoundError" } })
    const unknownSession = { messageID: unknownMessageID }
    expect((await context.call("POST", `/session/${unknownSessionID}/revert`, unknownSession)).status).toBe(
      404,
    )
    expect((await context.call("POST", `/session/${unknownSessionID}/unrevert`)).status).toBe(404)
  })

  it("POST /revert and /unrevert answer 409 while the session runs", async () => {
    const context = withFiles([...twoTurns, [say.text("Working"), say.delay(600_000)]])
    const { id, users } = await promptTwice(context)
    const started = nextEvent(context.runtime, (event) => event.type === "message.part.delta")
    await context.call("POST", `/session/${id}/prompt_async`, text("third"))
    await started
    const busy = await context.call("POST", `/session/${id}/revert`, { messageID: users[0]!.info.id })
    expect(busy).toMatchObject({ status: 409, body: { name: "BusyError", data: { sessionID: id } } })
    expect((await context.call("POST", `/session/${id}/unrevert`)).status).toBe(409)
    const idle = nextEvent(context.runtime, (event) => event.type === "session.idle")
    await context.call("POST", `/session/${id}/abort`)
    await idle
  })

  it("GET /diff answers what the session or one turn changed", async () => {
    const context = withFiles(twoTurns)
    const { id, users } = await promptTwice(context)
    const all = await context.call("GET", `/session/${id}/diff`)
    expect(all).toMatchObject({ status: 200, body: [{ file: "a" }] })
    const turn = await context.call("GET", `/session/${id}/diff?messageID=${users[1]!.info.id}`)
    // As OpenCode sends a diff: a unified patch and a status instead of both texts.
    expect(turn.body).toEqual([
      {
        file: "a",
        status: "modified",
        additions: 1,
        deletions: 1,
        patch: expect.stringMatching(/^-1$[\s\S]*^\+2$/m),
      },
    ])
    expect(JSON.stringify((await context.call("GET", `/session/${id}/diff?messageID=x`)).body)).toContain(
      '"path":"messageID"',
    )
    expect((await context.call("GET", `/session/${unknownSessionID}/diff`)).status).toBe(404)
  })

  it("GET /diff without a Snapshot answers no changes: nothing was recorded", async () => {
    const { call, newSession } = setup()
    const id = await newSession()
    expect(await call("GET", `/session/${id}/diff`)).toMatchObject({ status: 200, body: [] })
    expect((await call("GET", `/session/${unknownSessionID}/diff`)).status).toBe(404)
  })
})
