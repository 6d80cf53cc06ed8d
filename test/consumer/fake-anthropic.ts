// A local stand-in for Anthropic's Messages API that plays README's refund conversation: the
// first request gets a `refund` tool call for order A1, the second (which must carry that
// call's result) gets the answer. Its events have the shapes of the recorded real streams in
// test/fixtures/provider-streams/anthropic--*.chunks.txt, sent as Anthropic sends them
// (`event:` and `data:` lines). Anything else is answered with an Anthropic-style 400 and
// recorded in `problems`, so a loop that forgot the tool result fails whoever drives it.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { z } from "zod"

export const fakeAnswer = "Order A1 is refunded."
const toolUseID = "toolu_01FakeRefundA1"

const ContentBlock = z.looseObject({ type: z.string(), tool_use_id: z.string().optional() })
const MessagesRequest = z.looseObject({
  model: z.string(),
  stream: z.boolean().optional(),
  tools: z.array(z.looseObject({ name: z.string() })).optional(),
  messages: z.array(
    z.object({ role: z.enum(["user", "assistant"]), content: z.union([z.string(), z.array(ContentBlock)]) }),
  ),
})
export type MessagesRequest = z.infer<typeof MessagesRequest>

export type FakeAnthropic = {
  /** The base URL, ending in /v1: for ANTHROPIC_BASE_URL or `createAnthropic({ baseURL })`. */
  url: string
  /** The bodies of the Messages API requests received, in order. */
  requests: MessagesRequest[]
  /** What was wrong with the requests, one line each; empty when the client behaved. */
  problems: string[]
  close(): Promise<void>
}

type Event = { type: string } & Record<string, unknown>

function usage(input: number, output: number): Record<string, number> {
  return {
    input_tokens: input,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: output,
  }
}

function message(id: string, input: number, blocks: Event[][], stopReason: string, output: number): Event[] {
  return [
    {
      type: "message_start",
      message: {
        model: "claude-sonnet-4-5-20250929",
        id,
        type: "message",
        role: "assistant",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage(input, 1), service_tier: "standard" },
      },
    },
    ...blocks.flatMap((events, index) => events.map((event) => ({ ...event, index }))),
    { type: "ping" },
    {
      type: "message_delta",
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: usage(input, output),
    },
    { type: "message_stop" },
  ]
}

const refundCall = message(
  "msg_01FakeRefundCall",
  900,
  [
    [
      {
        type: "content_block_start",
        content_block: { type: "tool_use", id: toolUseID, name: "refund", input: {} },
      },
      { type: "content_block_delta", delta: { type: "input_json_delta", partial_json: "" } },
      { type: "content_block_delta", delta: { type: "input_json_delta", partial_json: '{"orderID": ' } },
      { type: "content_block_delta", delta: { type: "input_json_delta", partial_json: '"A1"}' } },
      { type: "content_block_stop" },
    ],
  ],
  "tool_use",
  40,
)

const refundAnswer = message(
  "msg_01FakeRefundAnswer",
  1000,
  [
    [
      { type: "content_block_start", content_block: { type: "text", text: "" } },
      { type: "content_block_delta", delta: { type: "text_delta", text: "Order A1" } },
      { type: "content_block_delta", delta: { type: "text_delta", text: " is refunded." } },
      { type: "content_block_stop" },
    ],
  ],
  "end_turn",
  20,
)

/** Why `request`, the `count`th, does not fit the conversation; undefined when it does. */
function problemWith(request: MessagesRequest, count: number): string | undefined {
  if (request.stream !== true) return `request ${count}: not streamed (stream is ${request.stream})`
  if (!request.tools?.some((tool) => tool.name === "refund")) return `request ${count}: offers no refund tool`
  if (count === 1) return undefined
  if (count > 2) return `request ${count}: the conversation is over after 2 requests`
  const last = request.messages.at(-1)
  const result = Array.isArray(last?.content)
    ? last.content.find((block) => block.type === "tool_result" && block.tool_use_id === toolUseID)
    : undefined
  if (last?.role === "user" && JSON.stringify(result ?? null).includes("refunded")) return undefined
  return `request ${count}: the last message carries no tool_result for ${toolUseID} with the refund's output`
}

function streamEvents(response: ServerResponse, events: Event[]): void {
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
  for (const event of events) response.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`)
  response.end()
}

function reject(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { "content-type": "application/json" })
  response.end(JSON.stringify({ type: "error", error: { type: "invalid_request_error", message } }))
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return JSON.parse(Buffer.concat(chunks).toString("utf8"))
}

export async function startFakeAnthropic(): Promise<FakeAnthropic> {
  const requests: MessagesRequest[] = []
  const problems: string[] = []
  const answer = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (request.method !== "POST" || request.url !== "/v1/messages")
      return reject(response, 404, `no route ${request.method} ${request.url}`)
    const parsed = MessagesRequest.safeParse(await readBody(request))
    const count = requests.length + 1
    const problem = parsed.success
      ? problemWith(parsed.data, count)
      : `request ${count}: not a Messages request: ${parsed.error.message}`
    if (parsed.success) requests.push(parsed.data)
    if (problem) {
      problems.push(problem)
      return reject(response, 400, problem)
    }
    streamEvents(response, count === 1 ? refundCall : refundAnswer)
  }
  const server = createServer((request, response) => {
    answer(request, response).catch((error: unknown) => {
      problems.push(`request failed: ${String(error)}`)
      if (!response.headersSent) reject(response, 400, String(error))
      else response.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    problems,
    close: () =>
      new Promise((resolve, reject) => {
        server.closeAllConnections()
        server.close((error) => (error ? reject(error) : resolve()))
      }),
  }
}
