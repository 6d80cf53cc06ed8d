/**
 * The support agent in a hono app: a chat route for AI SDK UI's `useChat` (streamed), and the
 * approvals a supervisor answers. Sessions and waiting approvals live in SQLite, so an approval
 * still waiting when the process stops is answered in the next one, and the turn goes on there.
 * `serve(app)` from `agentloop-sdk/server` (or `@hono/node-server`) puts it on a port.
 */
import { createRuntime, type RuntimeOptions } from "agentloop-sdk"
import { chatHandler } from "agentloop-sdk/server"
import { SqliteStorage } from "agentloop-sdk/storage/sqlite"
import { Hono } from "hono"
import { z } from "zod"
import { supportAgent } from "./agent.js"

const Approval = z.object({ approve: z.boolean() })

export function createSupportApp(options: { database: string; model: RuntimeOptions["model"] }) {
  const runtime = createRuntime({
    ...supportAgent,
    model: options.model,
    storage: new SqliteStorage(options.database),
  })
  const chat = chatHandler(runtime)
  const app = new Hono()
    .post("/sessions", async (c) => c.json(await runtime.session.create({ title: "Support" }), 201))
    .post("/sessions/:id/chat", (c) => chat(c.req.raw, c.req.param("id")))
    .get("/approvals", async (c) => c.json(await runtime.permission.list()))
    .post("/approvals/:requestID", async (c) => {
      const { approve } = Approval.parse(await c.req.json())
      const waiting = await runtime.permission.list()
      const request = waiting.find((entry) => entry.id === c.req.param("requestID"))
      if (!request) return c.json({ error: "No such approval is waiting" }, 404)
      await runtime.permission.reply({ requestID: request.id, reply: approve ? "once" : "reject" })
      // The reply resumes the turn, in this process even when another one asked; loop joins it.
      const turn = await runtime.session.loop(request.sessionID)
      return c.json({ finish: turn.finish, text: turn.text, cost: turn.usage.cost })
    })
  return { app, runtime }
}
