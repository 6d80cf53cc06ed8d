// A wrong base URL against a real refused connection: the call fails after the short connect
// budget, not after the 8 retries of a transient provider error.
import { createServer } from "node:net"
import { createOpenAI } from "@ai-sdk/openai"
import { describe, expect, it } from "vitest"
import { createProvider, createRuntime, MemoryStorage } from "../../src/index.js"
import { testModelInfo } from "../../src/testing/index.js"

/** A port nothing listens on: taken from the OS, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

describe("a refused connection", () => {
  it("is retried connectAttempts times, then the turn fails naming the connection", async () => {
    const openai = createOpenAI({ apiKey: "test", baseURL: `http://127.0.0.1:${await closedPort()}/v1` })
    const info = { ...testModelInfo, providerID: "openai", id: "gpt-test" }
    const runtime = createRuntime({
      storage: new MemoryStorage(),
      provider: createProvider({
        models: [{ providerID: "openai", modelID: "gpt-test", language: openai.chat("gpt-test"), info }],
        default: { providerID: "openai", modelID: "gpt-test" },
      }),
      // The waits are capped so the test takes milliseconds; the count is what is checked.
      retry: { maxDelayMs: 5 },
    })
    const retries: string[] = []
    runtime.events.on("session.status", (event) => {
      if (event.properties.status.type === "retry") retries.push(event.properties.status.message)
    })
    const session = await runtime.session.create()
    const result = await runtime.session.prompt({
      sessionID: session.id,
      parts: [{ type: "text", text: "hi" }],
    })
    expect(retries).toEqual(["Cannot connect to the provider", "Cannot connect to the provider"])
    expect(result.finish).toMatchObject({ reason: "error", error: { name: "APIError" } })
    expect(JSON.stringify(result.finish)).toMatch(/ECONNREFUSED|Cannot connect/)
    await runtime.close()
  })
})
