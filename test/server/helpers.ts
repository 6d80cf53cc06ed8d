import type { Hono } from "hono"
import type { Event, Runtime } from "../../src/index.js"
import { createServer, type ServerOptions } from "../../src/server/index.js"
import { createTestRuntime, type TestRuntimeOptions } from "../../src/testing/index.js"

/** A well-formed ID that no runtime made. */
export const unknownSessionID = `ses_${"Z".repeat(26)}`
export const unknownMessageID = `msg_${"0".repeat(26)}`
export const unknownPermissionID = `per_${"0".repeat(26)}`
export const unknownQuestionID = `que_${"0".repeat(26)}`

export const text = (value: string) => ({ parts: [{ type: "text", text: value }] })

export type Answer = { status: number; body: unknown; headers: Headers }

/** A test runtime, its server app, and `call(method, path, body?)` answering status and parsed JSON. */
export function setup(options: TestRuntimeOptions & { server?: ServerOptions } = {}) {
  const { server, ...runtimeOptions } = options
  const context = createTestRuntime(runtimeOptions)
  const app = createServer(context.runtime, server)
  async function call(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<Answer> {
    const init: RequestInit = { method, ...(headers ? { headers } : {}) }
    if (body !== undefined) init.body = typeof body === "string" ? body : JSON.stringify(body)
    const response = await app.request(path, init)
    const raw = await response.text()
    return {
      status: response.status,
      body: raw === "" ? undefined : JSON.parse(raw),
      headers: response.headers,
    }
  }
  async function newSession(): Promise<string> {
    const { body } = await call("POST", "/session", {})
    return (body as { id: string }).id
  }
  return { ...context, app, call, newSession }
}

/**
 * The routes an app serves, once each: hono lists a route once per handler (its OpenAPI
 * description and the handler itself) and middleware as method "ALL".
 */
export function servedRoutes(app: Hono): { method: string; path: string }[] {
  const keys = new Set(
    app.routes.filter((route) => route.method !== "ALL").map((r) => `${r.method} ${r.path}`),
  )
  return [...keys].map((key) => {
    const [method = "", path = ""] = key.split(" ")
    return { method, path }
  })
}

/** Resolves on the first event the predicate accepts (registered before the caller acts). */
export function nextEvent(runtime: Runtime, accept: (event: Event) => boolean): Promise<Event> {
  return new Promise((resolve) => {
    const stop = runtime.events.onAny((event) => {
      if (!accept(event)) return
      stop()
      resolve(event)
    })
  })
}

/**
 * Checks `condition` once per event-loop turn (network callbacks run in between) until it holds;
 * throws once `timeoutMs` has passed. A bound, not a sleep: it returns as soon as it holds.
 */
export async function eventually(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition still false after ${timeoutMs} ms`)
    await new Promise((resolve) => setImmediate(resolve))
  }
}

export type SSEMessage = { event: string; data: unknown } | { comment: string }

/** Reads server-sent events from a response body, one message at a time. */
export function sseReader(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let buffer = ""
  async function next(): Promise<SSEMessage | undefined> {
    for (;;) {
      const end = buffer.indexOf("\n\n")
      if (end >= 0) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        return parseBlock(block)
      }
      const { value, done } = await reader.read()
      if (done) return undefined
      buffer += decoder.decode(value, { stream: true })
    }
  }
  /** Events (not comments) until `stop` accepts one; all of them, that one included. */
  async function until(stop: (message: { event: string; data: unknown }) => boolean) {
    const seen: { event: string; data: unknown }[] = []
    for (let message = await next(); message; message = await next()) {
      if ("comment" in message) continue
      seen.push(message)
      if (stop(message)) return seen
    }
    throw new Error(`the stream ended after ${seen.length} events`)
  }
  return { next, until, cancel: () => reader.cancel() }
}

function parseBlock(block: string): SSEMessage {
  if (block.startsWith(":")) return { comment: block.slice(1).trim() }
  const lines = block.split("\n")
  const event = lines.find((line) => line.startsWith("event: "))?.slice(7) ?? "message"
  const data = lines
    .filter((line) => line.startsWith("data: "))
    .map((line) => line.slice(6))
    .join("\n")
  return { event, data: JSON.parse(data) }
}
