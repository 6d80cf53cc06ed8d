/**
 * A local mock LLM server for the HTTP benches: node:http on 127.0.0.1 (a free port), speaking the
 * OpenAI chat-completions streaming API as `@ai-sdk/openai-compatible` parses it. Every request's
 * JSON body is read and parsed, as a real server would, and the reply is streamed as SSE
 * (`data: {...}` chunks, then `data: [DONE]`): text as content deltas, tool calls as `tool_calls`
 * deltas (id and function name first, then the arguments in pieces), a chunk with the finish
 * reason, and a usage chunk when the request asks for one (`stream_options.include_usage`).
 *
 * What to answer comes from the request alone, so that any number of clients can share one server:
 * the `x-mock-script` header names the script, and the step of a `loop` script is the number of
 * tool messages in the body.
 *
 * - `loop:N`: N steps of one `lookup` tool call with `{ "n": step }` (call ID `call_<step>`), then
 *   the text "Done: every record is read." The server checks that the body holds the results of
 *   every earlier call, so a loop that drops history fails instead of measuring less.
 * - `text:N`: one text of N deltas of "word ", then `stop`.
 *
 * `spawnLLMServer()` runs it in a child process, so that its work (parsing the growing prompt,
 * writing the stream) is not on the clock of the process being measured, as with a real server;
 * `startLLMServer()` runs it in this process.
 */
import { type ChildProcess, fork } from "node:child_process"
import { once } from "node:events"
import http from "node:http"
import type { AddressInfo } from "node:net"
import { fileURLToPath } from "node:url"

export const SCRIPT_HEADER = "x-mock-script"
export const MODEL_ID = "mock-model"
export const TOOL_NAME = "lookup"
export const FINAL_TEXT = "Done: every record is read."

/** The part of a chat-completions request the server reads. */
type ChatRequest = {
  model?: string
  stream?: boolean
  stream_options?: { include_usage?: boolean }
  messages?: { role?: string; tool_call_id?: string; content?: unknown }[]
}

/** One reply: text deltas, tool calls (arguments in pieces), the finish reason and token usage. */
type Reply = {
  text: string[]
  toolCalls: { id: string; name: string; arguments: string[] }[]
  finish: "stop" | "tool_calls"
  outputTokens: number
}

/** Thrown for a request the script cannot answer; sent back as a 400 with the message. */
class BadRequest extends Error {}

function reply(script: string, request: ChatRequest): Reply {
  const [name, count] = script.split(":")
  const n = Number(count)
  if (!Number.isInteger(n) || n < 0) throw new BadRequest(`bad ${SCRIPT_HEADER}: ${script}`)
  const messages = request.messages ?? []
  if (name === "text")
    return { text: Array.from({ length: n }, () => "word "), toolCalls: [], finish: "stop", outputTokens: n }
  if (name !== "loop") throw new BadRequest(`unknown script: ${script}`)
  // The step is the number of tool results sent; they must be those of calls 0..step-1.
  let step = 0
  for (const message of messages) {
    if (message.role !== "tool") continue
    if (message.tool_call_id !== `call_${step}`)
      throw new BadRequest(`tool message ${step} answers ${message.tool_call_id}, expected call_${step}`)
    step++
  }
  if (step > n) throw new BadRequest(`step ${step} of a ${n}-step script`)
  if (step === n)
    return {
      text: FINAL_TEXT.split(/(?= )/),
      toolCalls: [],
      finish: "stop",
      outputTokens: 7,
    }
  return {
    text: [],
    toolCalls: [{ id: `call_${step}`, name: TOOL_NAME, arguments: ['{"n"', ":", `${step}`, "}"] }],
    finish: "tool_calls",
    outputTokens: 12,
  }
}

/** The SSE events of a reply, each a `data: ...` line and a blank line. */
function* events(reply: Reply, request: ChatRequest, requestBytes: number): Generator<string> {
  const head = { id: "chatcmpl-mock", object: "chat.completion.chunk", created: 1_767_225_600 }
  const model = request.model ?? MODEL_ID
  const chunk = (delta: object, finish: string | null = null) =>
    `data: ${JSON.stringify({ ...head, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
  yield chunk({ role: "assistant", content: "" })
  for (const text of reply.text) yield chunk({ content: text })
  for (const [index, call] of reply.toolCalls.entries()) {
    yield chunk({
      tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }],
    })
    for (const piece of call.arguments)
      yield chunk({ tool_calls: [{ index, function: { arguments: piece } }] })
  }
  yield chunk({}, reply.finish)
  if (request.stream_options?.include_usage) {
    // Nominal usage (about 4 bytes per token of the request), capped well below the bench model's
    // window so that agentloop's compaction never triggers: the hand-written loops have none.
    const prompt = Math.min(Math.ceil(requestBytes / 4), 50_000)
    const usage = {
      prompt_tokens: prompt,
      completion_tokens: reply.outputTokens,
      total_tokens: prompt + reply.outputTokens,
    }
    yield `data: ${JSON.stringify({ ...head, model, choices: [], usage })}\n\n`
  }
  yield "data: [DONE]\n\n"
}

async function handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  const bytes = chunks.reduce((sum, chunk) => sum + chunk.length, 0)
  if (request.method !== "POST" || !request.url?.endsWith("/chat/completions")) {
    response.writeHead(404, { "content-type": "application/json" })
    response.end(JSON.stringify({ error: { message: `no route ${request.method} ${request.url}` } }))
    return
  }
  let body: ChatRequest
  let answer: Reply
  try {
    body = JSON.parse(Buffer.concat(chunks, bytes).toString("utf8")) as ChatRequest
    if (body.stream !== true) throw new BadRequest("only streaming requests are served")
    answer = reply(String(request.headers[SCRIPT_HEADER] ?? ""), body)
  } catch (error) {
    response.writeHead(400, { "content-type": "application/json" })
    response.end(JSON.stringify({ error: { message: String(error), type: "invalid_request_error" } }))
    return
  }
  response.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  })
  // One write per event, as a server flushing each token does; wait when the socket is full.
  for (const event of events(answer, body, bytes)) {
    if (!response.write(event)) await once(response, "drain")
  }
  response.end()
}

export type LLMServer = {
  /** The base URL to give `createOpenAICompatible`, e.g. http://127.0.0.1:41234/v1. */
  baseURL: string
  close(): Promise<void>
}

/** Starts the server in this process, on a free port of 127.0.0.1. */
export async function startLLMServer(): Promise<LLMServer> {
  const server = http.createServer((request, response) => {
    handle(request, response).catch((error) => {
      console.error("mock LLM server:", error)
      response.destroy()
    })
  })
  // Long-lived client connections between rounds: no idle timeout cutting them.
  server.keepAliveTimeout = 60_000
  server.listen(0, "127.0.0.1")
  await once(server, "listening")
  const { port } = server.address() as AddressInfo
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    async close() {
      server.closeAllConnections()
      server.close()
      await once(server, "close")
    },
  }
}

const CHILD_FLAG = "--mock-llm-server"

/**
 * Starts the server in a child process (the same loaders as this one, e.g. tsx, and no profiler
 * or `--eval` flags) and returns once it listens. `close()` ends it.
 */
export async function spawnLLMServer(): Promise<LLMServer> {
  const execArgv: string[] = []
  const args = process.execArgv
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!
    if (/^--(require|import|loader|experimental-loader)=/.test(arg) || /^-r./.test(arg)) execArgv.push(arg)
    else if (/^(--require|-r|--import|--loader|--experimental-loader)$/.test(arg))
      execArgv.push(arg, args[++index]!)
  }
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [CHILD_FLAG], {
    execArgv,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  })
  const exited = once(child, "exit")
  const [message] = (await Promise.race([
    once(child, "message"),
    exited.then(([code]) => {
      throw new Error(`mock LLM server exited with ${code} before listening`)
    }),
  ])) as [{ baseURL: string }]
  return {
    baseURL: message.baseURL,
    async close() {
      child.disconnect()
      await exited
    },
  }
}

// The child: serve until the parent disconnects (or dies).
if (process.argv.includes(CHILD_FLAG) && process.send) {
  const server = await startLLMServer()
  process.send({ baseURL: server.baseURL })
  process.once("disconnect", () => {
    void server.close().then(() => process.exit(0))
  })
}
