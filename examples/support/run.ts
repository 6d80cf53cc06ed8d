/**
 * The support app, played offline: a customer asks for a refund through the chat route, as
 * `useChat` would; the refund waits for approval and the runtime closes, as a stopping process's
 * does. A new runtime on the same SQLite file, as a restarted process makes, lists the approval;
 * a supervisor grants it on the app's route, and the turn finishes. Set ANTHROPIC_API_KEY,
 * OPENAI_API_KEY or AGENTLOOP_BASE_URL for a real model.
 *
 *   npx tsx examples/support/run.ts
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { MessageV2, Permission } from "agentloop-sdk"
import { type CallOptions, scriptFor } from "agentloop-sdk/testing"
import { DefaultChatTransport, readUIMessageStream } from "ai"
import { chooseModel } from "../choose-model.js"
import { supportAgent } from "./agent.js"
import { createSupportApp } from "./app.js"

const folder = mkdtempSync(join(tmpdir(), "agentloop-support-"))
const database = join(folder, "support.db")
const { label, language, info } = chooseModel(() => scriptedAgent)
console.log(`Model: ${label}\n`)

// The first process: the customer's message, sent and streamed as useChat does.
const first = createSupportApp({ database, model: { language, info } })
const session = (await (await first.app.request("/sessions", { method: "POST" })).json()) as { id: string }
const transport = new DefaultChatTransport<MessageV2.UIMessage>({
  api: `/sessions/${session.id}/chat`,
  fetch: async (url, init) => first.app.request(url, init),
})
const stream = await transport.sendMessages({
  trigger: "submit-message",
  chatId: session.id,
  messageId: undefined,
  abortSignal: undefined,
  messages: [{ id: "m1", role: "user", parts: [{ type: "text", text: "Please refund order A1." }] }],
})
for await (const message of readUIMessageStream<MessageV2.UIMessage>({ stream })) {
  const approval = message.parts.find((part) => part.type === "data-permission")
  if (approval?.type !== "data-permission") continue
  const text = message.parts.flatMap((part) => (part.type === "text" ? [part.text] : []))
  console.log(`[chat] ${text.join("")}`)
  console.log(
    `[approval pending] ${approval.data.permission} ${JSON.stringify(approval.data.metadata.input)}`,
  )
  break
}
await first.runtime.close() // the process stops; waiting approvals stay stored, as after a crash
console.log("[process stopped]")

// The next process, on the same file: the approval is still there, and granting it ends the turn.
const second = createSupportApp({ database, model: { language, info } })
const waiting = (await (await second.app.request("/approvals")).json()) as Permission.Request[]
for (const request of waiting)
  console.log(`[new process] GET /approvals: ${request.permission} ${JSON.stringify(request.metadata.input)}`)
if (waiting[0]) {
  const approve = { approve: true }
  const response = await second.app.request(`/approvals/${waiting[0].id}`, {
    method: "POST",
    body: JSON.stringify(approve),
  })
  const turn = (await response.json()) as { finish: { reason: string }; text: string }
  console.log(`POST /approvals/:id ${JSON.stringify(approve)} -> ${turn.finish.reason}: ${turn.text}`)
}
const calls = (await second.runtime.session.messages(session.id))
  .flatMap((message) => message.parts)
  .flatMap((part) => (part.type === "tool" ? [`${part.tool} ${part.state.status}`] : []))
console.log(`Tool calls stored: ${calls.join(", ")}`)
await second.runtime.close()
rmSync(folder, { recursive: true, force: true })

/** The scripted model decides from what it is sent, so the new process picks the story up. */
function scriptedAgent(call: CallOptions) {
  const say = scriptFor(supportAgent.tools)
  const done = call.prompt
    .flatMap((message) => (message.role === "tool" ? message.content : []))
    .flatMap((part) => (part.type === "tool-result" ? [part.toolName] : []))
  if (done.includes("refund"))
    return [say.text("Order A1 (Desk lamp) is refunded: $42.00 goes back to your card.")]
  if (done.includes("lookup_order")) return [say.toolCall("refund", { orderID: "A1" })]
  return [say.text("Let me find your order."), say.toolCall("lookup_order", { orderID: "A1" })]
}
