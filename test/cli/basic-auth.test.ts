import { describe, expect, it } from "vitest"
import { basicAuth } from "../../src/cli/basic-auth.js"

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
