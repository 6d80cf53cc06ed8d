/**
 * pi's agent loop (`@mariozechner/pi-agent-core`'s `Agent`) on the mock LLM server, for the loop
 * bench: the same steps as the hand-written loops, through pi's own OpenAI-compatible provider
 * (`@mariozechner/pi-ai`'s `openai-completions` API, which posts with the `openai` SDK).
 */
import { setMaxListeners } from "node:events"
import { Agent, type AgentTool } from "@mariozechner/pi-agent-core"
import { type Model, Type } from "@mariozechner/pi-ai"
import { type LLMServer, MODEL_ID, SCRIPT_HEADER, TOOL_NAME } from "./llm-server.js"

/** What the run shares with the other variants: the system prompt, the user's prompt and the one tool. */
export type PiWork = { system: string; prompt: string; description: string; output: (n: number) => string }

/** What a run recorded of the requests it made: their count, the first and the last body. */
export type PiProbe = { calls: number; first?: unknown; last?: unknown }

/** The `lookup` tool's input as a TypeBox schema, which pi validates each call against. */
const PARAMETERS = Type.Object({ n: Type.Number() })

/**
 * A fresh `Agent` for one run of `steps` steps, as the other variants get a fresh model: a pi model
 * whose `baseUrl` is the mock server and whose `headers` name the script. pi builds each request
 * body and hands it to `onPayload` before posting it; the hook counts the calls and keeps the first
 * and last bodies (serialised by the caller once the clock stops). `run` prompts once and checks
 * that the loop ended with the final text.
 */
export function preparePiLoop(
  steps: number,
  server: LLMServer,
  work: PiWork,
): { run: () => Promise<void>; probe: PiProbe } {
  const model: Model<"openai-completions"> = {
    id: MODEL_ID,
    name: "Mock LLM server",
    api: "openai-completions",
    provider: "mock",
    baseUrl: server.baseURL,
    reasoning: false,
    input: ["text"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 200_000,
    maxTokens: 32_000,
    headers: { [SCRIPT_HEADER]: `loop:${steps}` },
  }
  const lookup: AgentTool<typeof PARAMETERS> = {
    name: TOOL_NAME,
    label: "Lookup",
    description: work.description,
    parameters: PARAMETERS,
    execute: async (_id, { n }) => ({ content: [{ type: "text", text: work.output(n) }], details: {} }),
  }
  const probe: PiProbe = { calls: 0 }
  const agent = new Agent({
    initialState: { systemPrompt: work.system, model, tools: [lookup] },
    getApiKey: () => "mock",
    onPayload: (payload) => {
      if (probe.calls === 0) probe.first = payload
      if (probe.calls === steps) probe.last = payload
      probe.calls++
      return undefined
    },
  })
  const run = async () => {
    const answered = agent.prompt(work.prompt)
    // The openai SDK adds an abort listener to the run's signal at every request and keeps it
    // until the run ends; past 10, Node would print a leak warning into the bench's output.
    if (agent.signal) setMaxListeners(0, agent.signal)
    await answered
    const answer = agent.state.messages.at(-1)
    if (answer?.role !== "assistant" || answer.stopReason !== "stop")
      throw new Error(`pi-agent-core ended with ${JSON.stringify(answer)}`)
  }
  return { run, probe }
}
