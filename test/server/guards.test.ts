import { describe, expect, it } from "vitest"
import { InvalidInputError, MemoryStorage, type Runtime, StorageError } from "../../src/index.js"
import { toErrorBody } from "../../src/server/error-status.js"
import { createServer } from "../../src/server/index.js"
import {
  servedRoutes,
  setup,
  text,
  unknownMessageID,
  unknownPermissionID,
  unknownQuestionID,
  unknownSessionID,
} from "./helpers.js"

/**
 * A runtime that records every property read: a route that does any work reads one. Building
 * the routes reads the served directory and the catalogue, so those are plain values; the reads
 * made while building are forgotten with `forget()`.
 */
function untouchable() {
  const touched: string[] = []
  const plain: Record<string, unknown> = {
    directory: "/tmp/project",
    agents: {},
    commands: {},
    provider: undefined,
  }
  const handler: ProxyHandler<object> = {
    get(_, key) {
      touched.push(String(key))
      if (typeof key === "string" && key in plain) return plain[key]
      return new Proxy(() => {}, handler)
    },
    apply() {
      touched.push("(call)")
      return new Proxy(() => {}, handler)
    },
  }
  return { runtime: new Proxy({}, handler) as Runtime, touched, forget: () => touched.splice(0) }
}

/** A request for every route the app serves, its parameters filled with well-formed IDs. */
function everyRoute(app: ReturnType<typeof createServer>) {
  const values: Record<string, string> = {
    sessionID: unknownSessionID,
    messageID: unknownMessageID,
    permissionID: unknownPermissionID,
    projectID: "global",
  }
  return servedRoutes(app).map(({ method, path }) => {
    const requestID = path.startsWith("/permission") ? unknownPermissionID : unknownQuestionID
    const filled: Record<string, string> = { ...values, requestID }
    return { method, path: path.replace(/:(\w+)/g, (_, name: string) => filled[name] ?? name) }
  })
}

describe("options.authorize", () => {
  it("names the scheme of options.challenge on a 401, and nothing without it", async () => {
    const { runtime } = untouchable()
    const challenged = createServer(runtime, { authorize: () => false, challenge: 'Bearer realm="agents"' })
    const refused = await challenged.request("/session")
    expect(refused.status).toBe(401)
    expect(refused.headers.get("www-authenticate")).toBe('Bearer realm="agents"')
    const plain = await createServer(runtime, { authorize: () => false }).request("/session")
    expect(plain.status).toBe(401)
    expect(plain.headers.get("www-authenticate")).toBeNull()
  })

  it("answers 401 on every route, /event and /doc included, before touching the runtime", async () => {
    const { runtime, touched, forget } = untouchable()
    const seen: Request[] = []
    const app = createServer(runtime, {
      authorize: (request) => {
        seen.push(request)
        return false
      },
    })
    forget()
    const routes = everyRoute(app)
    expect(routes).toContainEqual({ method: "GET", path: "/event" })
    expect(routes).toContainEqual({ method: "GET", path: "/doc" })
    for (const { method, path } of routes) {
      const init =
        method === "GET" || method === "DELETE" ? { method } : { method, body: JSON.stringify(text("x")) }
      const response = await app.request(path, init)
      expect(response.status, `${method} ${path}`).toBe(401)
      expect(await response.json()).toEqual({
        name: "UnauthorizedError",
        data: { message: "The request is not authorized" },
      })
    }
    expect(seen).toHaveLength(routes.length)
    expect(touched).toEqual([])
  })

  it("lets a request through when it resolves true, and sees its headers", async () => {
    const { call } = setup({
      server: { authorize: async (request) => request.headers.get("authorization") === "Bearer secret" },
    })
    expect((await call("GET", "/session", undefined, { authorization: "Bearer secret" })).status).toBe(200)
    expect((await call("GET", "/session", undefined, { authorization: "Bearer guess" })).status).toBe(401)
  })
})

describe("options.cors", () => {
  it("adds no CORS headers by default", async () => {
    const { app } = setup()
    const response = await app.request("/session", { headers: { origin: "https://app.example" } })
    expect(response.headers.get("access-control-allow-origin")).toBeNull()
    expect((await app.request("/session", { method: "OPTIONS" })).status).toBe(404)
  })

  it("allows the listed origins, answers their preflight, and keeps others out", async () => {
    const origin = "https://app.example"
    const { app } = setup({ server: { cors: { origin: [origin] }, authorize: () => false } })
    const preflight = await app.request("/session", {
      method: "OPTIONS",
      headers: {
        origin,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization",
      },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get("access-control-allow-origin")).toBe(origin)
    expect(preflight.headers.get("access-control-allow-headers")).toBe("authorization")
    const refused = await app.request("/session", { headers: { origin } })
    expect(refused.status).toBe(401)
    expect(refused.headers.get("access-control-allow-origin")).toBe(origin)
    const other = await app.request("/session", { headers: { origin: "https://evil.example" } })
    expect(other.headers.get("access-control-allow-origin")).toBeNull()
  })
})

describe("options.bodyLimit", () => {
  it("answers 413 for a body over the limit, without prompting", async () => {
    const { call, newSession, model } = setup({ server: { bodyLimit: 1000 } })
    const id = await newSession()
    const answer = await call("POST", `/session/${id}/message`, text("x".repeat(2000)))
    expect(answer).toMatchObject({
      status: 413,
      body: { name: "PayloadTooLargeError", data: { limit: 1000 } },
    })
    expect(model.calls).toEqual([])
  })

  it("defaults to 10 MB", async () => {
    const { call } = setup()
    const answer = await call("POST", "/session", { title: "x".repeat(10 * 1024 * 1024) })
    expect(answer).toMatchObject({ status: 413, body: { data: { limit: 10 * 1024 * 1024 } } })
    expect((await call("POST", "/session", { title: "x".repeat(1024 * 1024) })).status).toBe(200)
  })
})

describe("errors", () => {
  it("answers malformed JSON with an InvalidInputError-shaped 400", async () => {
    const { call } = setup()
    const answer = await call("POST", "/session", "{ title:")
    expect(answer).toMatchObject({
      status: 400,
      body: {
        name: "InvalidInputError",
        data: { issues: [{ path: "(root)", message: expect.stringMatching(/^Malformed JSON/) }] },
      },
    })
  })

  it("answers an unknown route with a 404 NotFoundError", async () => {
    const { call } = setup()
    expect(await call("GET", "/nowhere")).toMatchObject({
      status: 404,
      body: { name: "NotFoundError", data: { id: "GET /nowhere" } },
    })
  })

  it("answers 503 once the runtime is closed", async () => {
    const { call, runtime } = setup()
    await runtime.close()
    expect(await call("GET", "/session")).toMatchObject({ status: 503, body: { name: "RuntimeClosedError" } })
  })

  it("maps named errors by the table, others to 500, and never shows a stack", () => {
    const invalid = new InvalidInputError({ message: "Invalid x", issues: [] })
    expect(toErrorBody(invalid)).toEqual({ status: 400, body: invalid.toObject() })
    const plain = toErrorBody(new TypeError("boom"))
    expect(plain).toEqual({ status: 500, body: { name: "UnknownError", data: { message: "boom" } } })
    expect(toErrorBody("a string")).toEqual({
      status: 500,
      body: { name: "UnknownError", data: { message: "Internal server error" } },
    })
  })

  it("answers a named error outside the table with 500, its name and its data", async () => {
    class BrokenStorage extends MemoryStorage {
      override async listSessions(): Promise<never> {
        throw new StorageError({ reason: "io", retryable: false, message: "disk gone" })
      }
    }
    const { app } = setup({ storage: new BrokenStorage() })
    const response = await app.request("/session")
    expect(response.status).toBe(500)
    const body = (await response.json()) as { name: string; data: object }
    expect(body).toMatchObject({ name: "StorageError", data: { reason: "io", message: "disk gone" } })
    expect(JSON.stringify(body)).not.toContain("    at ")
  })
})
