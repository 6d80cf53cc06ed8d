import { describe, expect, it } from "vitest"
import { say } from "../../src/testing/index.js"
import { setup, text, unknownSessionID } from "./helpers.js"

const issuePaths = (body: unknown) =>
  (body as { data: { issues: { path: string }[] } }).data.issues.map((issue) => issue.path)

describe("session routes", () => {
  it("POST /session creates a session, with or without a body", async () => {
    const { call, runtime } = setup()
    const empty = await call("POST", "/session")
    expect(empty.status).toBe(200)
    const titled = await call("POST", "/session", { title: "Planning" })
    expect(titled.body).toMatchObject({ title: "Planning", id: expect.stringMatching(/^ses_/) })
    expect(await runtime.session.list()).toHaveLength(2)
  })

  it("POST /session answers 400 naming the field, and 404 for an unknown parent", async () => {
    const { call } = setup()
    const bad = await call("POST", "/session", { title: 5 })
    expect(bad.status).toBe(400)
    expect(bad.body).toMatchObject({ name: "InvalidInputError" })
    expect(issuePaths(bad.body)).toEqual(["title"])
    expect(issuePaths((await call("POST", "/session", { colour: "red" })).body)).toEqual(["(root)"])
    const orphan = await call("POST", "/session", { parentID: unknownSessionID })
    expect(orphan).toMatchObject({
      status: 404,
      body: { name: "NotFoundError", data: { id: unknownSessionID } },
    })
  })

  it("GET /session lists sessions, filtered by ?parentID= and cut by ?limit=", async () => {
    const { call, newSession } = setup()
    const parent = await newSession()
    await call("POST", "/session", { parentID: parent })
    await call("POST", "/session", { parentID: parent })
    expect((await call("GET", "/session")).body).toHaveLength(3)
    expect((await call("GET", `/session?parentID=${parent}`)).body).toHaveLength(2)
    expect((await call("GET", "/session?limit=1")).body).toHaveLength(1)
    const bad = await call("GET", "/session?limit=many")
    expect(bad.status).toBe(400)
    expect(issuePaths(bad.body)).toEqual(["limit"])
    expect(issuePaths((await call("GET", "/session?parentID=x")).body)).toEqual(["parentID"])
  })

  it("GET /session/:id answers the session, 404 when unknown, 400 when not an ID", async () => {
    const { call, newSession } = setup()
    const id = await newSession()
    expect((await call("GET", `/session/${id}`)).body).toMatchObject({ id })
    expect((await call("GET", `/session/${unknownSessionID}`)).status).toBe(404)
    const bad = await call("GET", "/session/nope")
    expect(bad.status).toBe(400)
    expect(issuePaths(bad.body)).toEqual(["sessionID"])
  })

  it("PATCH /session/:id renames and archives", async () => {
    const { call, newSession } = setup()
    const id = await newSession()
    const patched = await call("PATCH", `/session/${id}`, { title: "Renamed", archived: true })
    expect(patched.body).toMatchObject({ title: "Renamed", time: { archived: expect.any(Number) } })
    expect(issuePaths((await call("PATCH", `/session/${id}`, { title: "" })).body)).toEqual(["title"])
    expect((await call("PATCH", `/session/${unknownSessionID}`, { title: "x" })).status).toBe(404)
  })

  it("DELETE /session/:id answers true and removes it with its children", async () => {
    const { call, newSession, runtime } = setup()
    const id = await newSession()
    await call("POST", "/session", { parentID: id })
    expect(await call("DELETE", `/session/${id}`)).toMatchObject({ status: 200, body: true })
    expect(await runtime.session.list()).toEqual([])
    expect((await call("DELETE", `/session/${id}`)).status).toBe(404)
  })

  it("GET /session/:id/children answers the child sessions", async () => {
    const { call, newSession } = setup()
    const id = await newSession()
    const child = await call("POST", "/session", { parentID: id })
    expect((await call("GET", `/session/${id}/children`)).body).toEqual([child.body])
    expect((await call("GET", `/session/${unknownSessionID}/children`)).status).toBe(404)
  })

  it("GET /session/:id/message answers the messages with their parts, ?limit= the newest", async () => {
    const { call, newSession } = setup({ turns: [[say.text("One")], [say.text("Two")]] })
    const id = await newSession()
    await call("POST", `/session/${id}/message`, text("first"))
    await call("POST", `/session/${id}/message`, text("second"))
    const all = (await call("GET", `/session/${id}/message`)).body as { info: { role: string } }[]
    expect(all.map((message) => message.info.role)).toEqual(["user", "assistant", "user", "assistant"])
    expect((await call("GET", `/session/${id}/message?limit=2`)).body).toHaveLength(2)
    expect(issuePaths((await call("GET", `/session/${id}/message?limit=0`)).body)).toEqual(["limit"])
    expect((await call("GET", `/session/${unknownSessionID}/message`)).status).toBe(404)
  })

  it("GET /session/:id/todo answers the list the model wrote, without the IDs (as OpenCode sends it)", async () => {
    const todos = [{ id: "1", content: "Write tests", status: "pending", priority: "high" }]
    const { call, newSession } = setup({
      todos: true,
      turns: [[say.toolCall("todowrite", { todos })], [say.text("Done")]],
    })
    const id = await newSession()
    expect((await call("GET", `/session/${id}/todo`)).body).toEqual([])
    await call("POST", `/session/${id}/message`, text("plan"))
    const withoutIDs = todos.map(({ id: _, ...todo }) => todo)
    expect((await call("GET", `/session/${id}/todo`)).body).toEqual(withoutIDs)
    expect((await call("GET", `/session/${unknownSessionID}/todo`)).status).toBe(404)
  })

  it("GET /session/:id/usage answers cost and tokens", async () => {
    const { call, newSession } = setup({ turns: [[say.text("Hi"), say.usage({ input: 1000, output: 100 })]] })
    const id = await newSession()
    await call("POST", `/session/${id}/message`, text("hello"))
    const usage = await call("GET", `/session/${id}/usage`)
    expect(usage.body).toMatchObject({
      tokens: { input: 1000, output: 100 },
      total: { cost: expect.any(Number) },
    })
    expect((await call("GET", `/session/${unknownSessionID}/usage`)).status).toBe(404)
  })
})
