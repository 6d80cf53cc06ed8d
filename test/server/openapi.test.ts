import { describe, expect, it } from "vitest"
import { setup } from "./helpers.js"

type Operation = {
  operationId: string
  parameters?: { name: string; in: string; required: boolean }[]
  requestBody?: {
    content: { "application/json": { schema: { properties: Record<string, unknown>; required?: string[] } } }
  }
  responses: Record<string, { description: string }>
}
type Document = { openapi: string; paths: Record<string, Record<string, Operation>> }

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
    const served = app.routes
      .filter((route) => route.method !== "ALL")
      .map((route) => `${route.method.toLowerCase()} ${route.path.replace(/:(\w+)/g, "{$1}")}`)
    const documented = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method} ${path}`),
    )
    expect(new Set(documented)).toEqual(new Set(served))
    expect(documented).toHaveLength(24)
  })

  it("describes the prompt body from PromptInput, without sessionID", async () => {
    const { document } = await documentOf()
    const prompt = document.paths["/session/{id}/message"]!.post!
    const schema = prompt.requestBody!.content["application/json"].schema
    expect(schema.properties).toHaveProperty("parts")
    expect(schema.properties).not.toHaveProperty("sessionID")
    expect(schema.required).toEqual(["parts"])
    expect(prompt.parameters).toEqual([expect.objectContaining({ name: "id", in: "path", required: true })])
    expect(prompt.responses["200"]?.description).toBe("The final message")
  })

  it("lists query parameters and reply bodies", async () => {
    const { document } = await documentOf()
    const list = document.paths["/session"]!.get!
    expect(list.parameters?.map((parameter) => [parameter.name, parameter.in, parameter.required])).toEqual([
      ["parentID", "query", false],
      ["limit", "query", false],
    ])
    const reply = document.paths["/permission/{requestID}/reply"]!.post!
    const body = reply.requestBody!.content["application/json"].schema
    expect(Object.keys(body.properties)).toEqual(["reply", "message", "sessionID"])
    expect(reply.responses["204"]).toBeDefined()
    expect(document.paths["/event"]!.get!.parameters?.map((parameter) => parameter.name)).toEqual([
      "sessionID",
    ])
  })
})
