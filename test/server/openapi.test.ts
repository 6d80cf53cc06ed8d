import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { servedRoutes, setup } from "./helpers.js"

type Schema = { type?: string; properties?: Record<string, unknown>; required?: string[] }
type Operation = {
  operationId: string
  parameters?: { name: string; in: string; required: boolean }[]
  requestBody?: { content: { "application/json": { schema: Schema } } }
  responses: Record<string, { description: string; content?: Record<string, { schema: Schema }> }>
}
type Document = { openapi: string; paths: Record<string, Record<string, Operation>> }

/** The document `opencode serve` 1.18.33 answers at GET /doc. */
const opencode = JSON.parse(
  readFileSync(new URL("../fixtures/opencode/openapi-1.18.33.json", import.meta.url), "utf8"),
) as Document

/** Every operation of a document as `method path` (OpenAPI's `{param}`) with its operation. */
function operations(document: Document) {
  return Object.entries(document.paths).flatMap(([path, byMethod]) =>
    Object.entries(byMethod).map(([method, operation]) => ({ route: `${method} ${path}`, operation })),
  )
}

async function documentOf() {
  const context = setup()
  const response = await context.app.request("/doc")
  expect(response.status).toBe(200)
  return { ...context, document: (await response.json()) as Document }
}

describe("GET /doc", () => {
  it("is an OpenAPI 3.1 document with one operation per route the app serves", async () => {
    const { app, document } = await documentOf()
    expect(document.openapi).toBe("3.1.0")
    const served = servedRoutes(app)
      // The document does not describe itself, as OpenCode's does not.
      .filter(({ method, path }) => !(method === "GET" && path === "/doc"))
      .map(({ method, path }) => `${method.toLowerCase()} ${path.replace(/:(\w+)/g, "{$1}")}`)
    const documented = operations(document).map(({ route }) => route)
    expect(documented.sort()).toEqual(served.sort())
    const ids = operations(document).map(({ operation }) => operation.operationId)
    expect(new Set(ids).size).toBe(ids.length)
  })

  it("uses OpenCode's operation IDs, on OpenCode's method and path", async () => {
    const { document } = await documentOf()
    const theirs = new Map(operations(opencode).map(({ route, operation }) => [route, operation.operationId]))
    const theirRoutes = new Map(
      operations(opencode).map(({ route, operation }) => [operation.operationId, route]),
    )
    const ours = operations(document)
    for (const { route, operation } of ours) {
      if (theirs.has(route)) expect(operation.operationId, route).toBe(theirs.get(route))
      if (theirRoutes.has(operation.operationId))
        expect(route, operation.operationId).toBe(theirRoutes.get(operation.operationId))
    }
    const byID = new Map(ours.map(({ route, operation }) => [operation.operationId, route]))
    expect(byID.get("session.create")).toBe("post /session")
    expect(byID.get("session.list")).toBe("get /session")
    expect(byID.get("session.prompt")).toBe("post /session/{sessionID}/message")
    expect(byID.get("session.prompt_async")).toBe("post /session/{sessionID}/prompt_async")
    expect(byID.get("permission.reply")).toBe("post /permission/{requestID}/reply")
    expect(byID.get("question.reject")).toBe("post /question/{requestID}/reject")
    expect(byID.get("event.subscribe")).toBe("get /event")
    // agentloop's own routes keep IDs OpenCode does not use.
    for (const own of ["session.usage", "session.chat"]) {
      expect(byID.has(own), own).toBe(true)
      expect(theirRoutes.has(own), own).toBe(false)
    }
  })

  it("describes the prompt body from PromptInput, without sessionID", async () => {
    const { document } = await documentOf()
    const prompt = document.paths["/session/{sessionID}/message"]!.post!
    const schema = prompt.requestBody!.content["application/json"].schema
    expect(schema.properties).toHaveProperty("parts")
    expect(schema.properties).not.toHaveProperty("sessionID")
    expect(schema.required).toEqual(["parts"])
    expect(prompt.parameters).toContainEqual(
      expect.objectContaining({ name: "sessionID", in: "path", required: true }),
    )
    expect(prompt.responses["200"]?.content?.["application/json"]).toBeDefined()
    expect(document.paths["/session/{sessionID}/prompt_async"]!.post!.responses["204"]).toBeDefined()
  })

  it("lists query parameters and reply bodies", async () => {
    const { document } = await documentOf()
    const query = (operation: Operation) =>
      (operation.parameters ?? []).filter((parameter) => parameter.in === "query")
    for (const { route, operation } of operations(document))
      expect(
        query(operation).map(({ name, required }) => [name, required]),
        route,
      ).toEqual(
        expect.arrayContaining([
          ["directory", false],
          ["workspace", false],
        ]),
      )
    const list = query(document.paths["/session"]!.get!)
    expect(list.map((parameter) => parameter.name)).toEqual(
      expect.arrayContaining(["parentID", "limit", "start", "search", "roots"]),
    )
    expect(list.every((parameter) => !parameter.required)).toBe(true)
    const reply = document.paths["/permission/{requestID}/reply"]!.post!
    const body = reply.requestBody!.content["application/json"].schema
    expect(Object.keys(body.properties ?? {})).toEqual(["reply", "message", "sessionID"])
    expect(body.required).toEqual(["reply"])
    expect(reply.responses["200"]?.content?.["application/json"]?.schema).toEqual({ type: "boolean" })
    expect(query(document.paths["/event"]!.get!).map((parameter) => parameter.name)).toContain("sessionID")
  })
})
