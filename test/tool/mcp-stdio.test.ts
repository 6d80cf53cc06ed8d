import { fileURLToPath } from "node:url"
import { createMCPClient, type MCPClient } from "@ai-sdk/mcp"
import { Experimental_StdioMCPTransport as StdioMCPTransport } from "@ai-sdk/mcp/mcp-stdio"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type MessageV2, Permission, Tool } from "../../src/index.js"
import { createTestRuntime, say, type Turn } from "../../src/testing/index.js"

const server = fileURLToPath(new URL("../fixtures/mcp/server.mjs", import.meta.url))

let client: MCPClient
let tools: Tool.Info[]

beforeAll(async () => {
  client = await createMCPClient({
    transport: new StdioMCPTransport({ command: process.execPath, args: [server] }),
  })
  tools = Tool.fromAISet(await client.tools(), { prefix: "mcp_" })
}, 20_000)
afterAll(async () => {
  await client?.close()
})

const toolPart = (messages: MessageV2.WithParts[]) =>
  messages.flatMap((message) => message.parts).find((part) => part.type === "tool")

async function runWith(turns: Turn[], permission?: Permission.Ruleset) {
  const asked: string[] = []
  const { runtime, model } = createTestRuntime({
    tools,
    turns,
    ...(permission ? { permission } : {}),
    onPermission: (request) => {
      asked.push(request.permission)
      return "once"
    },
  })
  const session = await runtime.session.create({})
  await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "go" }] })
  const messages = await runtime.session.messages(session.id)
  await runtime.close()
  return { messages, model, asked }
}

describe("an MCP server's tools over stdio, through the AI SDK's MCP client", () => {
  it("are offered with the server's JSON schema and run with their own permission", async () => {
    expect(tools.map((tool) => tool.id).sort()).toEqual(["mcp_add", "mcp_fail", "mcp_pixel"])
    const { messages, model, asked } = await runWith(
      [[say.toolCall("mcp_add", { a: 2, b: 3 })], [say.text("5")]],
      Permission.fromConfig({ "mcp_*": "ask" }),
    )
    const offered = model.calls[0]!.tools?.find((tool) => tool.name === "mcp_add")
    expect(offered).toMatchObject({
      type: "function",
      description: "Adds two numbers",
      inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
    })
    expect(asked).toEqual(["mcp_add"])
    expect(toolPart(messages)).toMatchObject({ tool: "mcp_add", state: { status: "completed", output: "5" } })
  })

  it("a rule that denies the tool keeps it from the model", async () => {
    const { model } = await runWith([[say.text("no tools")]], Permission.fromConfig({ mcp_add: "deny" }))
    const names = model.calls[0]!.tools?.map((tool) => tool.name) ?? []
    expect(names).not.toContain("mcp_add")
    expect(names).toContain("mcp_fail")
  })

  it("an isError result fails the call with the server's text", async () => {
    const { messages } = await runWith([[say.toolCall("mcp_fail", {})], [say.text("it failed")]])
    expect(toolPart(messages)).toMatchObject({
      tool: "mcp_fail",
      state: { status: "error", error: expect.stringContaining("the fixture refuses") },
    })
  })

  it("an image in the result becomes an attachment", async () => {
    const { messages } = await runWith([[say.toolCall("mcp_pixel", {})], [say.text("a pixel")]])
    const part = toolPart(messages)
    expect(part).toMatchObject({ state: { status: "completed", output: "one pixel" } })
    const attachments =
      part?.type === "tool" && part.state.status === "completed" ? part.state.attachments : []
    expect(attachments).toMatchObject([
      { type: "file", mime: "image/png", url: expect.stringMatching(/^data:image\/png;base64,/) },
    ])
  })

  it("arguments that fail the server's schema go back to the model", async () => {
    const { messages } = await runWith([[say.toolCall("mcp_add", { a: "two" })], [say.text("oops")]])
    expect(toolPart(messages)).toMatchObject({ tool: "mcp_add", state: { status: "error" } })
  })
})
