// A fresh process's first turn, timed from the process's start (performance.now()): imports,
// runtime creation and one tool step plus the answer against the mock LLM server. Plain
// JavaScript on the built package, so that no TypeScript loader is on the clock.
//   node bench/first-turn-child.mjs <streamtext|direct|memory|sqlite> <baseURL> <sqlite file>
const [variant, baseURL, sqliteFile] = process.argv.slice(2)
const TOOL = "lookup"
const DESCRIPTION = "Looks up a record and returns about 2 KB of text"
const SYSTEM = "You are an agent that reads records with the tools you are given."
const PROMPT = "Read every record."
const MODEL_ID = "mock-model"
const output = (n) =>
  `${`record ${n}: a line of the file the agent was asked to read`.padEnd(63, ".").slice(0, 63)}\n`.repeat(32)

const marks = {}
const mark = (name) => {
  marks[name] = performance.now()
}

async function model() {
  const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible")
  const provider = createOpenAICompatible({
    name: "mock",
    baseURL,
    includeUsage: true,
    headers: { "x-mock-script": "loop:1" },
  })
  return provider.chatModel(MODEL_ID)
}

async function streamTextTurn() {
  const { streamText, tool, stepCountIs } = await import("ai")
  const { z } = await import("zod")
  const language = await model()
  mark("imported")
  const tools = {
    [TOOL]: tool({
      description: DESCRIPTION,
      inputSchema: z.object({ n: z.number() }),
      execute: async ({ n }) => output(n),
    }),
  }
  mark("ready")
  const result = streamText({
    model: language,
    system: SYSTEM,
    prompt: PROMPT,
    tools,
    stopWhen: stepCountIs(5),
  })
  for await (const _part of result.fullStream);
  return result.text
}

async function directTurn() {
  await import("ai")
  const language = await model()
  mark("imported")
  const prompt = [
    { role: "system", content: SYSTEM },
    { role: "user", content: [{ type: "text", text: PROMPT }] },
  ]
  const tools = [
    {
      type: "function",
      name: TOOL,
      description: DESCRIPTION,
      inputSchema: {
        type: "object",
        properties: { n: { type: "number" } },
        required: ["n"],
        additionalProperties: false,
      },
    },
  ]
  mark("ready")
  let text = ""
  for (;;) {
    const { stream } = await language.doStream({ prompt, tools })
    const reader = stream.getReader()
    const content = []
    const calls = []
    let finish = "other"
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      const part = next.value
      if (part.type === "text-delta") text += part.delta
      else if (part.type === "tool-call") {
        const call = {
          type: "tool-call",
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          input: JSON.parse(part.input),
        }
        calls.push(call)
        content.push(call)
      } else if (part.type === "finish") finish = part.finishReason.unified
      else if (part.type === "error") throw part.error
    }
    if (text) content.push({ type: "text", text })
    prompt.push({ role: "assistant", content })
    if (finish !== "tool-calls") return text
    prompt.push({
      role: "tool",
      content: calls.map((call) => ({
        type: "tool-result",
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        output: { type: "text", value: output(call.input.n) },
      })),
    })
  }
}

async function agentloopTurn() {
  const { createRuntime, createProvider, Tool } = await import("../dist/index.js")
  const { z } = await import("zod")
  const storage =
    variant === "sqlite"
      ? new (await import("../dist/storage/sqlite/index.js")).SqliteStorage(sqliteFile)
      : undefined
  const language = await model()
  mark("imported")
  const lookup = Tool.define(TOOL, {
    description: DESCRIPTION,
    parameters: z.object({ n: z.number() }),
    execute: async ({ n }) => output(n),
  })
  const ref = { providerID: "mock", modelID: MODEL_ID }
  const info = {
    providerID: "mock",
    id: MODEL_ID,
    name: "Mock LLM server",
    limit: { context: 200_000, output: 32_000 },
    cost: { input: 3, output: 15, cache: { read: 0.3, write: 3.75 } },
    capabilities: { reasoning: true, toolcall: true, attachment: true, temperature: true },
  }
  const runtime = createRuntime({
    ...(storage ? { storage } : {}),
    tools: [lookup],
    provider: createProvider({ models: [{ ...ref, language, info }], default: ref }),
  })
  const session = await runtime.session.create({ title: "First turn" })
  mark("ready")
  const turn = await runtime.session.prompt({
    sessionID: session.id,
    parts: [{ type: "text", text: PROMPT }],
  })
  await runtime.close()
  return turn.text
}

const text = await (variant === "streamtext"
  ? streamTextTurn()
  : variant === "direct"
    ? directTurn()
    : agentloopTurn())
mark("answered")
// CPU time (all threads) to the answer: steadier than the wall clock when other work shares the cores.
const { user, system } = process.cpuUsage()
marks.cpu = (user + system) / 1000
if (!text.includes("Done")) throw new Error(`${variant} answered ${JSON.stringify(text)}`)
process.stdout.write(`${JSON.stringify(marks)}\n`)
