// The Worker run.ts bundles and serves with workerd: the core on memory storage, a tool-using
// scripted turn, streamed to the client through chatHandler as useChat would receive it.
import { createRuntime, MemoryStorage, Tool } from "agentloop-sdk"
import { chatHandler } from "agentloop-sdk/server"
import { say, scriptedModel } from "agentloop-sdk/testing"
import { z } from "zod"

const weather = Tool.define("weather", {
  description: "The weather in a city",
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, celsius: 21 }),
})

/** A runtime per request: this Worker keeps nothing between requests. */
async function chat(request: Request): Promise<Response> {
  const runtime = createRuntime({
    model: scriptedModel([
      [say.toolCall("weather", { city: "Oslo" })],
      [say.text("It is 21 °C in Oslo.", { chunks: 3 })],
    ]),
    storage: new MemoryStorage(),
    tools: [weather],
    permission: [{ permission: "weather", pattern: "*", action: "allow" }],
  })
  const session = await runtime.session.create({ title: "workerd" })
  return chatHandler(runtime)(request, session.id)
}

export default {
  async fetch(request: Request): Promise<Response> {
    const { pathname } = new URL(request.url)
    if (pathname === "/health") return new Response("ok")
    if (pathname === "/chat" && request.method === "POST") return chat(request)
    return new Response("not found", { status: 404 })
  },
}
