/**
 * Sub-agents: a primary agent hands two lookups to the `general` sub-agent at once; each runs
 * in a child session with a tool of its own, and the parent sums up their reports. Offline,
 * with a scripted model that answers by what it is sent. Run with `npx tsx examples/delegate.ts`.
 */
import { Tool } from "agentloop-sdk"
import { type CallOptions, createTestRuntime, say } from "agentloop-sdk/testing"
import { z } from "zod"

const populations: Record<string, string> = { Lisbon: "545,000", Porto: "232,000" }
const lookup = Tool.define("lookup", {
  description: "The population of a city",
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => populations[city] ?? "unknown",
})

/** The scripted model: a child ("Look up X") calls lookup then reports; the parent delegates, then sums up. */
function answer(call: CallOptions) {
  return [...steps(call), say.usage({ input: 1_000, output: 50 })]
}

function steps(call: CallOptions) {
  const userTexts = call.prompt.flatMap((message) =>
    message.role === "user"
      ? message.content.flatMap((part) => (part.type === "text" ? [part.text] : []))
      : [],
  )
  const results = call.prompt.flatMap((message) =>
    message.role === "tool" ? message.content.filter((part) => part.type === "tool-result") : [],
  )
  const child = /^Look up (\w+)$/.exec(userTexts[0] ?? "")
  if (child) {
    const city = child[1]!
    if (results.length === 0) return [say.toolCall("lookup", { city })]
    return [say.text(`${city} has ${populations[city]} inhabitants.`)]
  }
  if (results.length === 0)
    return ["Lisbon", "Porto"].map((city) =>
      say.toolCall("task", {
        description: `Population of ${city}`,
        prompt: `Look up ${city}`,
        subagent_type: "general",
      }),
    )
  return [say.text("Both lookups are back: Lisbon has 545,000 inhabitants and Porto 232,000.")]
}

// task: true offers the built-in `general` sub-agent (a host's own sub-agents turn it on by themselves).
const { runtime } = createTestRuntime({
  tools: [lookup],
  task: true,
  turns: Array.from({ length: 7 }, () => answer),
})
runtime.events.on("session.created", ({ properties: { info } }) => {
  if (info.parentID) console.log(`[child session] ${info.title}`)
})

const session = await runtime.session.create({ title: "Cities" })
const final = await runtime.session.prompt({
  sessionID: session.id,
  parts: [{ type: "text", text: "How many people live in Lisbon and in Porto?" }],
})
for (const child of await runtime.session.children(session.id)) {
  const messages = await runtime.session.messages(child.id)
  const report = messages.at(-1)?.parts.find((part) => part.type === "text")
  console.log(`${child.title}: ${report?.type === "text" ? report.text : "(no report)"}`)
}
const text = final.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("")
console.log(`Parent: ${text}`)
const usage = await runtime.session.usage(session.id)
console.log(
  `Cost: $${usage.cost.toFixed(6)} for the parent, $${usage.total.cost.toFixed(6)} with its sub-agents`,
)
await runtime.close()
