import { describe, expect, it } from "vitest"
import { say } from "../../src/testing/index.js"
import { setup, sseReader, text } from "./helpers.js"

describe("GET /event and GET /global/event headers", () => {
  it("tell proxies not to buffer or transform the stream, and browsers not to sniff it", async () => {
    const { app } = setup()
    for (const path of ["/event", "/global/event"]) {
      const response = await app.request(path)
      expect(response.headers.get("cache-control"), path).toBe("no-cache, no-transform")
      expect(response.headers.get("x-accel-buffering"), path).toBe("no")
      expect(response.headers.get("x-content-type-options"), path).toBe("nosniff")
      await sseReader(response.body!).cancel()
    }
  })
})

describe("GET /session/:id/message paging headers", () => {
  it("names the page before in a Link header with rel=next, as OpenCode does", async () => {
    const { app, call, newSession } = setup({ turns: [[say.text("a")], [say.text("b")]] })
    const id = await newSession()
    await call("POST", `/session/${id}/message`, text("1"))
    await call("POST", `/session/${id}/message`, text("2"))
    const page = await app.request(`/session/${id}/message?limit=2`)
    const cursor = page.headers.get("x-next-cursor")
    expect(cursor).toEqual(expect.any(String))
    const link = /^<([^>]+)>; rel="next"$/.exec(page.headers.get("link") ?? "")
    expect(link).not.toBeNull()
    const next = new URL(link![1]!)
    expect(next.pathname).toBe(`/session/${id}/message`)
    expect(Object.fromEntries(next.searchParams)).toEqual({ limit: "2", before: cursor })
    // Following the link answers the page before, the last one: no cursor, no link.
    const earlier = await app.request(`${next.pathname}${next.search}`)
    expect(((await earlier.json()) as unknown[]).length).toBe(2)
    expect(earlier.headers.get("x-next-cursor")).toBeNull()
    expect(earlier.headers.get("link")).toBeNull()
  })

  it("lets a browser page read the cursor and the link when CORS is on", async () => {
    const origin = "http://localhost:3000"
    const { app, newSession } = setup({ server: { cors: { origin } } })
    const id = await newSession()
    const response = await app.request(`/session/${id}/message?limit=1`, { headers: { Origin: origin } })
    const exposed = (response.headers.get("access-control-expose-headers") ?? "")
      .split(",")
      .map((name) => name.trim().toLowerCase())
    expect(exposed).toEqual(expect.arrayContaining(["link", "x-next-cursor"]))
  })
})
