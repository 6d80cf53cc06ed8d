import { afterEach, describe, expect, it } from "vitest"
import type { MessageV2 } from "../../../src/index.js"
import { createTestRuntime, say } from "../../../src/testing/index.js"
import { webfetchTool } from "../../../src/tools/webfetch/index.js"
import { localServer } from "./server.js"

let server: Awaited<ReturnType<typeof localServer>> | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

const toolParts = (messages: MessageV2.WithParts[]) =>
  messages
    .flatMap((message) => message.parts)
    .filter((part): part is MessageV2.ToolPart => part.type === "tool")

describe("webfetch in a runtime", () => {
  it("sends no request when a webfetch rule denies the URL", async () => {
    server = await localServer((_, response) => response.end("secret"))
    const url = server.url("/page")
    const { runtime } = createTestRuntime({
      tools: [webfetchTool({ allowPrivate: true })],
      permission: [{ permission: "webfetch", pattern: `${server.origin}/*`, action: "deny" }],
      turns: [[say.toolCall("webfetch", { url })], [say.text("Cannot.")]],
    })
    const session = await runtime.session.create()
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "fetch it" }] })
    const [part] = toolParts(await runtime.session.messages(session.id))
    expect(part?.state.status).toBe("error")
    expect(part?.state.status === "error" && part.state.error).toContain("deny")
    expect(server.seen.connections).toBe(0)
    await runtime.close()
  })

  it("asks again for a redirect, so a rule denying its URL holds", async () => {
    const inside = await localServer((_, response) => response.end("secret"))
    try {
      server = await localServer((_, response) => {
        response.writeHead(302, { location: inside.url("/admin") })
        response.end()
      })
      const { runtime } = createTestRuntime({
        tools: [webfetchTool({ allowPrivate: true })],
        permission: [
          { permission: "webfetch", pattern: "*", action: "allow" },
          { permission: "webfetch", pattern: `${inside.origin}/*`, action: "deny" },
        ],
        turns: [[say.toolCall("webfetch", { url: server.url("/docs") })], [say.text("Cannot.")]],
      })
      const session = await runtime.session.create()
      await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "fetch it" }] })
      const [part] = toolParts(await runtime.session.messages(session.id))
      expect(part?.state.status === "error" && part.state.error).toContain("deny")
      expect(server.seen.requests).toBe(1)
      expect(inside.seen.connections).toBe(0)
      await runtime.close()
    } finally {
      await inside.close()
    }
  })

  it("fetches once the rules allow it", async () => {
    server = await localServer((_, response) => {
      response.writeHead(200, { "content-type": "text/html" })
      response.end("<h2>Hello</h2>")
    })
    const url = server.url("/page")
    const { runtime } = createTestRuntime({
      tools: [webfetchTool({ allowPrivate: true })],
      permission: [{ permission: "webfetch", pattern: "*", action: "allow" }],
      turns: [[say.toolCall("webfetch", { url })], [say.text("Done.")]],
    })
    const session = await runtime.session.create()
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "fetch it" }] })
    const [part] = toolParts(await runtime.session.messages(session.id))
    expect(part?.state.status).toBe("completed")
    expect(part?.state.status === "completed" && part.state.output).toBe("## Hello")
    expect(part?.state.status === "completed" && part.state.title).toBe(`${url} (text/html)`)
    await runtime.close()
  })
})
