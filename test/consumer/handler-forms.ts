// Handlers and hooks written as people write them, sync and async, with literal answers and
// without `as const`: compiled against the packed package (check.ts), never run. A type that
// widens `async () => "reject"` to `Promise<string>` and then refuses it fails here.
import { createRuntime, type Permission, type Question, type RuntimeOptions, Tool } from "agentloop-sdk"
import type { ServerOptions } from "agentloop-sdk/server"
import { z } from "zod"

declare const provider: NonNullable<RuntimeOptions["provider"]>

const permissionHandlers: Permission.Handler[] = [
  async () => "reject",
  async () => "once",
  () => "once",
  () => "always",
  async () => ({ reply: "reject", message: "Use the staging database instead" }),
  () => ({ reply: "once" }),
  (request) => (request.permission === "bash" ? "reject" : "once"),
  async (request, { signal }) => {
    if (signal.aborted) return "reject"
    return request.patterns.length > 1 ? { reply: "reject", message: "one at a time" } : "always"
  },
]

const questionHandlers: Question.Handler[] = [
  async (request) => request.questions.map((question) => [question.options[0]?.label ?? "yes"]),
  () => [["yes"]],
  async () => [],
  async (_request, { signal }) => (signal.aborted ? [] : [["a", "b"]]),
]

const hooks: NonNullable<RuntimeOptions["hooks"]> = {
  "chat.message": async (_input, output) => {
    if (output.parts.length === 0) throw new Error("an empty message")
  },
  // A concise body returns what push returns: the hook's result is not used.
  "chat.system": (_input, output) => output.system.push("Answer in British English."),
  "chat.params": async (_input, output) => {
    output.temperature = 0
  },
  "tool.before": async ({ tool }, output) => (tool === "bash" ? Object.freeze(output.args) : undefined),
  "tool.after": (_input, output) => {
    output.title = output.title.trim()
  },
  "text.complete": async (_input, output) => output.text.trim(),
}

const authorize: NonNullable<ServerOptions["authorize"]>[] = [
  async (request) => request.headers.get("authorization") === "Bearer secret",
  () => true,
]

const lookup = Tool.define("lookup", {
  description: "Looks up an order",
  parameters: z.object({ orderID: z.string() }),
  execute: async ({ orderID }) => ({ title: orderID, output: "shipped", metadata: {} }),
})

// Inline, where the option's type is all the context there is.
createRuntime({
  provider,
  tools: [lookup],
  onPermission: async () => "reject",
  onQuestion: async () => [["yes"]],
  onListenerError: async (error, event) => console.error(event.type, error),
  hooks: { "chat.system": async (_input, output) => output.system.push("Be brief.") },
})
createRuntime({ provider, onPermission: () => "once", onQuestion: () => [] })
createRuntime({ provider, onPermission: async () => ({ reply: "reject", message: "not today" }) })

export { authorize, hooks, permissionHandlers, questionHandlers }
