import { describe, expect, it } from "vitest"
import { basicAuth } from "../../src/cli/basic-auth.js"
import { createServer } from "../../src/server/index.js"
import { createTestRuntime } from "../../src/testing/index.js"

const authorize = basicAuth({ username: "opencode", password: "s3cret" })
const token = (credentials: string) => Buffer.from(credentials).toString("base64")
const request = (headers: Record<string, string> = {}, query = "") =>
  new Request(`http://127.0.0.1:4096/session${query}`, { headers })

describe("basicAuth", () => {
  it("lets in the user and password opencode attach sends", () => {
    expect(authorize(request({ authorization: `Basic ${token("opencode:s3cret")}` }))).toBe(true)
    expect(authorize(request({ authorization: `basic  ${token("opencode:s3cret")}` }))).toBe(true)
  })

  it("keeps out a request without credentials, with the wrong password or user, or malformed", () => {
    expect(authorize(request())).toBe(false)
    expect(authorize(request({ authorization: `Basic ${token("opencode:s3cre")}` }))).toBe(false)
    expect(authorize(request({ authorization: `Basic ${token("opencode:s3cret!")}` }))).toBe(false)
    expect(authorize(request({ authorization: `Basic ${token("admin:s3cret")}` }))).toBe(false)
    expect(authorize(request({ authorization: `Basic ${token("s3cret")}` }))).toBe(false)
    expect(authorize(request({ authorization: `Bearer ${token("opencode:s3cret")}` }))).toBe(false)
  })

  it("takes the credentials from ?auth_token= as OpenCode's web client sends them", () => {
    expect(authorize(request({}, `?auth_token=${encodeURIComponent(token("opencode:s3cret"))}`))).toBe(true)
    expect(authorize(request({}, `?auth_token=${encodeURIComponent(token("opencode:nope"))}`))).toBe(false)
  })
})

describe("basicAuth's ?auth_token= through createServer", () => {
  it("is taken by the routes that check their query (never 400 Unrecognized key), the event stream too", async () => {
    const { runtime } = createTestRuntime()
    const app = createServer(runtime, { authorize })
    const { id } = await runtime.session.create({})
    const auth = `auth_token=${encodeURIComponent(token("opencode:s3cret"))}`
    const failures: string[] = []
    const paths = [
      "/session",
      "/session?roots=true",
      `/session/${id}/message`,
      `/session/${id}/message?limit=5`,
    ]
    for (const path of [...paths, `/session/${id}/diff`, `/session/${id}`, "/agent"]) {
      const response = await app.request(`${path}${path.includes("?") ? "&" : "?"}${auth}`)
      if (response.status !== 200) failures.push(`GET ${path}: ${response.status} ${await response.text()}`)
    }
    const event = await app.request(`/event?sessionID=${id}&${auth}`)
    if (event.status !== 200) failures.push(`GET /event: ${event.status} ${await event.text()}`)
    await event.body?.cancel()
    expect(failures).toEqual([])
    expect((await app.request(`/session?${auth.replace(/=.*/, "=bm9wZQ==")}`)).status).toBe(401)
    await runtime.close()
  })
})
