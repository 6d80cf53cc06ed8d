import { describe, expect, it } from "vitest"
import { answer, getJSON, openapi, refusal, startServer, testModel } from "./helpers.js"

const DAY = 24 * 60 * 60 * 1000

describe("sessions through OpenCode's SDK clients", () => {
  it("session.create makes a Session (with a title, or with agent, model and metadata)", async () => {
    const { v2, older, runtime, directory } = await startServer()
    const titled = await answer("session.create", v2.session.create({ title: "Planning" }))
    expect(titled).toMatchObject({ title: "Planning", directory })
    expect((await runtime.session.get(titled.id)).title).toBe("Planning")

    const model = { id: testModel.modelID, providerID: testModel.providerID }
    const chosen = await answer(
      "session.create",
      v2.session.create({ agent: "build", model, metadata: { ticket: 7 } }),
    )
    expect(await answer("session.get", v2.session.get({ sessionID: chosen.id }))).toMatchObject({
      agent: "build",
      model,
      metadata: { ticket: 7 },
    })

    const fromOlder = await answer("session.create", older.session.create({ body: { title: "Older" } }))
    expect((await runtime.session.get(fromOlder.id)).title).toBe("Older")
  })

  it("session.list filters by roots, search and start, and keeps to limit", async () => {
    const { v2, older, url, directory } = await startServer()
    const alpha = await answer("session.create", v2.session.create({ title: "Alpha plan" }))
    const beta = await answer("session.create", v2.session.create({ title: "Beta" }))
    const child = await answer(
      "session.create",
      v2.session.create({ title: "Alpha child", parentID: alpha.id }),
    )

    const ids = (sessions: { id: string }[]) => sessions.map((session) => session.id).sort()
    const everything = await answer("session.list", v2.session.list())
    expect(ids(everything)).toEqual([alpha.id, beta.id, child.id].sort())
    expect(ids(await answer("session.list", v2.session.list({ roots: true })))).toEqual(
      [alpha.id, beta.id].sort(),
    )
    expect(ids(await answer("session.list", v2.session.list({ search: "alpha" })))).toEqual(
      [alpha.id, child.id].sort(),
    )
    expect(await answer("session.list", v2.session.list({ limit: 1 }))).toHaveLength(1)
    expect(await answer("session.list", v2.session.list({ start: Date.now() + DAY }))).toEqual([])
    expect(ids(await answer("session.list", older.session.list()))).toEqual(ids(everything))

    // What `opencode attach` asks at start: the last 30 days, and an empty `path`.
    const query = `start=${Date.now() - 30 * DAY}&path=&directory=${encodeURIComponent(directory)}`
    const tui = await getJSON(url, `/session?${query}`)
    expect(tui.status).toBe(200)
    openapi.expectShape("session.list", tui.body)
  })

  it("session.get answers the Session through both clients, and 404 for an unknown one", async () => {
    const { v2, older } = await startServer()
    const created = await answer("session.create", v2.session.create({ title: "Get me" }))
    expect(await answer("session.get", v2.session.get({ sessionID: created.id }))).toEqual(created)
    expect(await answer("session.get", older.session.get({ path: { id: created.id } }))).toEqual(created)
    const missing = await refusal(v2.session.get({ sessionID: `ses_${"Z".repeat(26)}` }))
    expect(missing.status).toBe(404)
  })

  it("session.update renames and archives", async () => {
    const { v2, older, runtime } = await startServer()
    const { id } = await answer("session.create", v2.session.create({ title: "Before" }))
    expect(
      await answer("session.update", v2.session.update({ sessionID: id, title: "After" })),
    ).toMatchObject({
      id,
      title: "After",
    })
    const archived = Date.now()
    const updated = await answer("session.update", v2.session.update({ sessionID: id, time: { archived } }))
    expect(updated.time.archived).toBe(archived)
    expect(
      await answer("session.update", older.session.update({ path: { id }, body: { title: "Older" } })),
    ).toMatchObject({ title: "Older" })
    expect((await runtime.session.get(id)).title).toBe("Older")
  })

  it("session.delete answers true and the session is gone", async () => {
    const { v2, older, runtime } = await startServer()
    const first = await answer("session.create", v2.session.create({}))
    const second = await answer("session.create", v2.session.create({}))
    expect(await answer("session.delete", v2.session.delete({ sessionID: first.id }))).toBe(true)
    expect(await answer("session.delete", older.session.delete({ path: { id: second.id } }))).toBe(true)
    expect(await runtime.session.list()).toEqual([])
    expect((await refusal(v2.session.get({ sessionID: first.id }))).status).toBe(404)
  })

  it("session.children lists a session's children", async () => {
    const { v2, older } = await startServer()
    const parent = await answer("session.create", v2.session.create({ title: "Parent" }))
    const child = await answer("session.create", v2.session.create({ parentID: parent.id }))
    expect(child.parentID).toBe(parent.id)
    const children = await answer("session.children", v2.session.children({ sessionID: parent.id }))
    expect(children.map((session) => session.id)).toEqual([child.id])
    expect(await answer("session.children", older.session.children({ path: { id: parent.id } }))).toEqual(
      children,
    )
  })

  it("session.status answers {} while nothing runs", async () => {
    const { v2, older } = await startServer()
    await answer("session.create", v2.session.create({}))
    expect(await answer("session.status", v2.session.status())).toEqual({})
    expect(await answer("session.status", older.session.status())).toEqual({})
  })

  it("session.fork copies a session into a new one", async () => {
    const { v2, older } = await startServer()
    const original = await answer("session.create", v2.session.create({ title: "Original" }))
    const fork = await answer("session.fork", v2.session.fork({ sessionID: original.id }))
    expect(fork.id).not.toBe(original.id)
    expect(fork.title).toContain("Original")
    const again = await answer("session.fork", older.session.fork({ path: { id: original.id } }))
    expect(again.id).not.toBe(fork.id)
  })
})

describe("the directory a request names", () => {
  it("is refused with 400 and a message naming both when it is not the runtime's", async () => {
    const { url, directory } = await startServer()
    const elsewhere = "/somewhere/else"
    const answered = await getJSON(url, `/session?directory=${encodeURIComponent(elsewhere)}`)
    expect(answered.status).toBe(400)
    expect(JSON.stringify(answered.body)).toContain(elsewhere)
    expect(JSON.stringify(answered.body)).toContain(directory)

    const header = await fetch(new URL("/session", url), {
      method: "POST",
      headers: { "content-type": "application/json", "x-opencode-directory": encodeURIComponent(elsewhere) },
      body: "{}",
    })
    expect(header.status).toBe(400)
  })

  it("is accepted when it is the runtime's, in the query or the header", async () => {
    const { url, directory } = await startServer()
    expect((await getJSON(url, `/session?directory=${encodeURIComponent(directory)}`)).status).toBe(200)
    const header = await fetch(new URL("/session", url), {
      method: "POST",
      headers: { "content-type": "application/json", "x-opencode-directory": encodeURIComponent(directory) },
      body: "{}",
    })
    expect(header.status).toBe(200)
  })
})
