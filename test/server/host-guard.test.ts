import { request as httpRequest } from "node:http"
import { afterEach, describe, expect, it } from "vitest"
import { createServer, type RunningServer, serve } from "../../src/server/index.js"
import { createTestRuntime } from "../../src/testing/index.js"
import { setup } from "./helpers.js"

/** What a page that rebound its name to 127.0.0.1 sends: its own host, its own origin. */
const rebound = { host: "http://evil.example:4096", origin: "http://evil.example:4096" }

describe("createServer without authorize: DNS rebinding", () => {
  it("refuses a Host that is not this machine with 403 ForbiddenHostError, before any route runs", async () => {
    const { app, runtime } = setup()
    const response = await app.request(`${rebound.host}/session`)
    expect(response.status).toBe(403)
    expect(await response.json()).toEqual({
      name: "ForbiddenHostError",
      data: { message: expect.stringContaining("evil.example"), host: "evil.example:4096" },
    })
    const created = await app.request(`${rebound.host}/session`, { method: "POST", body: "{}" })
    expect(created.status).toBe(403)
    expect(await runtime.session.list()).toEqual([])
  })

  it("refuses a cross-site text/plain POST (an Origin that is not this machine), and creates nothing", async () => {
    const { app, runtime } = setup()
    const response = await app.request("http://127.0.0.1:4096/session", {
      method: "POST",
      headers: { "content-type": "text/plain", origin: rebound.origin },
      body: "{}",
    })
    expect(response.status).toBe(403)
    expect(await response.json()).toMatchObject({
      name: "ForbiddenHostError",
      data: { host: "evil.example:4096" },
    })
    expect(await runtime.session.list()).toEqual([])
  })

  it("answers every loopback name, with any port, and loopback origins", async () => {
    const { app } = setup()
    for (const host of [
      "localhost",
      "localhost:4096",
      "127.0.0.1:4096",
      "127.3.2.1",
      "[::1]:4096",
      "[::1]",
    ]) {
      const response = await app.request(`http://${host}/session`, {
        headers: { origin: `http://${host}` },
      })
      expect(response.status, host).toBe(200)
    }
    const local = await app.request("http://127.0.0.1:4096/session", {
      headers: { origin: "http://localhost:5173" },
    })
    expect(local.status).toBe(200)
  })

  it("answers the hosts of options.allowedHosts (a proxy's name) and the origins of options.cors", async () => {
    const { app } = setup({
      server: { allowedHosts: ["agents.internal"], cors: { origin: "https://app.example" } },
    })
    expect((await app.request("http://agents.internal:8080/session")).status).toBe(200)
    expect(
      (await app.request("http://AGENTS.internal/session", { headers: { origin: "http://agents.internal" } }))
        .status,
    ).toBe(200)
    expect(
      (await app.request("http://127.0.0.1/session", { headers: { origin: "https://app.example" } })).status,
    ).toBe(200)
    expect((await app.request("http://other.internal/session")).status).toBe(403)
    expect(
      (await app.request("http://127.0.0.1/session", { headers: { origin: "https://other.example" } }))
        .status,
    ).toBe(403)
  })

  it("answers any host with allowedHosts: true", async () => {
    const { app } = setup({ server: { allowedHosts: true } })
    expect(
      (await app.request(`${rebound.host}/session`, { headers: { origin: rebound.origin } })).status,
    ).toBe(200)
  })

  it("leaves hosts to authorize when there is one, as before", async () => {
    const { app } = setup({ server: { authorize: () => true } })
    expect(
      (await app.request(`${rebound.host}/session`, { headers: { origin: rebound.origin } })).status,
    ).toBe(200)
  })
})

describe("serve() of createServer without authorize", () => {
  let server: RunningServer | undefined
  afterEach(async () => {
    await server?.close()
  })

  /** A raw HTTP request, so that the Host header is the one given (fetch sets its own). */
  function get(port: number, host: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const request = httpRequest(
        { host: "127.0.0.1", port, path: "/session", headers: { host } },
        (response) => {
          response.resume()
          resolve(response.statusCode ?? 0)
        },
      )
      request.setTimeout(5000, () => request.destroy(new Error("no answer in 5 s")))
      request.on("error", reject)
      request.end()
    })
  }

  it("answers 403 to `curl -H 'Host: evil.example:4096'` and 200 to its own host", async () => {
    const { runtime } = createTestRuntime()
    server = await serve(createServer(runtime), { port: 0 })
    expect(await get(server.port, "evil.example:4096")).toBe(403)
    expect(await get(server.port, `127.0.0.1:${server.port}`)).toBe(200)
    expect(await get(server.port, `localhost:${server.port}`)).toBe(200)
    await server.close()
    server = undefined
    await runtime.close()
  })
})
