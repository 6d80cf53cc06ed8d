import { mkdtempSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createOpencodeClient as createOlderClient } from "@opencode-ai/sdk"
import { createOpencodeClient } from "@opencode-ai/sdk/v2"
import { onTestFinished } from "vitest"
import { z } from "zod"
import { type Permission, Tool } from "../../../src/index.js"
import { createServer, serve } from "../../../src/server/index.js"
import { createTestRuntime, type TestRuntimeOptions } from "../../../src/testing/index.js"
import { eventually } from "../helpers.js"
import { createShapeChecker } from "./openapi-check.js"

export { eventually }

/** OpenCode 1.18.33's own document, compiled once per test file. */
export const openapi = createShapeChecker()

/** The scripted model, as OpenCode's clients name models. */
export const testModel = { providerID: "scripted", modelID: "scripted-model" }

/**
 * A test runtime served on a free port, and both of OpenCode's SDK clients pointed at it with the
 * runtime's directory, as `opencode attach` and scripts make them. Everything stops when the test ends.
 */
export async function startServer(options: TestRuntimeOptions = {}) {
  const directory = realpathSync(mkdtempSync(join(tmpdir(), "agentloop-opencode-")))
  const context = createTestRuntime({ directory, ...options })
  const server = await serve(createServer(context.runtime), { port: 0 })
  onTestFinished(async () => {
    await server.close()
    await context.runtime.close()
    rmSync(directory, { recursive: true, force: true })
  })
  return {
    ...context,
    url: server.url,
    directory,
    v2: createOpencodeClient({ baseUrl: server.url, directory }),
    older: createOlderClient({ baseUrl: server.url, directory }),
  }
}

type SDKResult = { data?: unknown; error?: unknown; request: Request; response: Response }

/**
 * What an SDK call answered, once its status is the operation's success status and its body
 * matches OpenCode's schema for it; otherwise an Error naming the call, the status and the body.
 */
export async function answer<R extends SDKResult>(
  operationId: string,
  call: Promise<R>,
): Promise<NonNullable<R["data"]>> {
  const result = await call
  const expected = openapi.successStatus(operationId)
  if (result.response.status !== expected) {
    const { method, url } = result.request
    const body = JSON.stringify(result.error ?? result.data)
    throw new Error(
      `${operationId}: ${method} ${new URL(url).pathname} answered ${result.response.status}, not ${expected}: ${body}`,
    )
  }
  // The SDK reads an empty answer as {}; an operation without a body has nothing else to check.
  if (expected !== 204) openapi.expectShape(operationId, result.data)
  return result.data as NonNullable<R["data"]>
}

/** What an SDK call refused with: the status and the parsed error body. */
export async function refusal(call: Promise<SDKResult>): Promise<{ status: number; body: unknown }> {
  const result = await call
  return { status: result.response.status, body: result.error ?? result.data }
}

/** A GET of the server with plain fetch (for the routes the SDK has no method for): status and JSON. */
export async function getJSON(url: string, path: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(new URL(path, url))
  const text = await response.text()
  return { status: response.status, body: text === "" ? undefined : JSON.parse(text) }
}

type EventStream<T> = Promise<{ stream: AsyncGenerator<T, unknown, unknown> }>
export type StreamOptions = {
  signal: AbortSignal
  sseMaxRetryAttempts: number
  onSseError: (error: unknown) => void
}

/**
 * Reads an SDK event stream in the background. `subscribe` gets the options that make it stop
 * when the test ends and give up on the first failure (the SDK retries forever otherwise).
 * `until` waits (bounded) for an event the predicate accepts; `connected` for the first event.
 */
export function collect<T>(subscribe: (options: StreamOptions) => EventStream<T>) {
  const events: T[] = []
  const errors: unknown[] = []
  const controller = new AbortController()
  onTestFinished(() => controller.abort())
  const options = {
    signal: controller.signal,
    sseMaxRetryAttempts: 1,
    onSseError: (e: unknown) => errors.push(e),
  }
  const reading = (async () => {
    const { stream } = await subscribe(options)
    for await (const event of stream) events.push(event)
  })()
  async function until(accept: (event: T) => boolean, timeoutMs = 5000): Promise<T> {
    let finished = false
    void reading.finally(() => {
      finished = true
    })
    await eventually(() => finished || errors.length > 0 || events.some(accept), timeoutMs)
    const found = events.find(accept)
    if (found !== undefined) return found
    throw new Error(`the event stream ended or failed before the event came: ${String(errors[0] ?? "")}`)
  }
  return { events, errors, until, connected: () => until(() => true), stop: () => controller.abort() }
}

/** A tool that asks permission `deploy` for its target before it runs, and the rule that makes it ask. */
export const deploy = Tool.define("deploy", {
  description: "Deploys to an environment",
  parameters: z.object({ target: z.string() }),
  async execute({ target }, context) {
    await context.ask({ permission: "deploy", patterns: [target] })
    return { title: target, output: `deployed to ${target}`, metadata: {} }
  },
})
export const askDeploy: Permission.Rule[] = [{ permission: "deploy", pattern: "*", action: "ask" }]

/** The text of a `{ info, parts }` answer. */
export function textOf(message: { parts: { type: string; text?: string }[] }): string {
  return message.parts
    .filter((part) => part.type === "text")
    .map((part) => part.text ?? "")
    .join("")
}
