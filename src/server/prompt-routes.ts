import type { Hono } from "hono"
import { z } from "zod"
import type { Runtime } from "../runtime/runtime.js"
import { inputs } from "./inputs.js"
import { readBody, readSessionID } from "./request-input.js"
import { documented } from "./route-doc.js"
import type { ServerEvents } from "./server-events.js"
import { asAssistantError, startPrompt } from "./start-prompt.js"
import { toWireMessage, WireWithParts } from "./wire/message.js"

type WirePrompt = z.output<typeof inputs.prompt>
type ModelName = z.output<typeof inputs.command>["model"]

/**
 * Work for a session: prompt (waiting or not), command, compaction, abort. None of them is tied
 * to the request: a client that disconnects does not cancel the run, only `abort` does. They
 * answer with the final message, as OpenCode's API does; the turn result stays in process.
 */
export function promptRoutes(app: Hono, runtime: Runtime, events: ServerEvents): void {
  askingRoutes(app, runtime, events)
  sessionWorkRoutes(app, runtime)
}

/** Prompts, waiting for the answer or not, and slash commands. */
function askingRoutes(app: Hono, runtime: Runtime, events: ServerEvents): void {
  app.post(
    "/session/:sessionID/message",
    documented({
      operationId: "session.prompt",
      summary: "Prompt and wait for the answer",
      body: inputs.prompt,
      response: WireWithParts,
    }),
    async (c) => {
      const sessionID = readSessionID(c)
      const input = libraryPrompt(await readBody(c, "session.prompt input", inputs.prompt))
      return c.json(toWireMessage(await runtime.session.prompt({ ...input, sessionID })))
    },
  )
  app.post(
    "/session/:sessionID/prompt_async",
    documented({
      operationId: "session.prompt_async",
      summary: "Prompt and return once the prompt is stored; follow the run on /event",
      body: inputs.prompt,
    }),
    async (c) => {
      const sessionID = readSessionID(c)
      const input = libraryPrompt(await readBody(c, "session.prompt input", inputs.prompt))
      await startPrompt(runtime, { ...input, sessionID }, (error) => {
        events.publish({ type: "session.error", properties: { sessionID, error: asAssistantError(error) } })
      })
      return c.body(null, 204)
    },
  )
  app.post(
    "/session/:sessionID/command",
    documented({
      operationId: "session.command",
      summary: "Run a slash command and wait for the answer",
      body: inputs.command,
      response: WireWithParts,
    }),
    async (c) => {
      const sessionID = readSessionID(c)
      const {
        model,
        variant: _,
        parts: __,
        ...input
      } = await readBody(c, "session.command input", inputs.command)
      const ref = modelRef(model)
      return c.json(
        toWireMessage(await runtime.session.command({ ...input, ...(ref ? { model: ref } : {}), sessionID })),
      )
    },
  )
}

/** Shell commands, compaction and abort. */
function sessionWorkRoutes(app: Hono, runtime: Runtime): void {
  app.post(
    "/session/:sessionID/shell",
    documented({
      operationId: "session.shell",
      summary: "Run a command line with the runtime's bash tool, recorded in the session",
      body: inputs.shell,
      response: WireWithParts,
    }),
    async (c) => {
      const sessionID = readSessionID(c)
      const input = await readBody(c, "session.shell input", inputs.shell)
      return c.json(toWireMessage(await runtime.session.shell({ ...input, sessionID })))
    },
  )
  app.post(
    "/session/:sessionID/summarize",
    documented({
      operationId: "session.summarize",
      summary: "Compact the session's history into a summary",
      body: inputs.summarize,
      response: z.boolean(),
    }),
    async (c) => {
      const sessionID = readSessionID(c)
      const { providerID, modelID } = await readBody(c, "session.summarize input", inputs.summarize)
      const model = providerID && modelID ? { providerID, modelID } : undefined
      await runtime.session.compact({ sessionID, ...(model ? { model } : {}) })
      return c.json(true)
    },
  )
  app.post(
    "/session/:sessionID/abort",
    documented({ operationId: "session.abort", summary: "Cancel the session's run", response: z.boolean() }),
    async (c) => {
      await runtime.session.cancel(readSessionID(c))
      return c.json(true)
    },
  )
}

/** The library's prompt input from a wire prompt: the fields OpenCode's clients add to parts dropped. */
function libraryPrompt(input: WirePrompt) {
  const parts = input.parts.map(
    ({ id: _, time: __, metadata: ___, source: ____, command: _____, ...part }) => part,
  )
  return { ...input, parts: parts as [(typeof parts)[number], ...typeof parts] }
}

/** `"provider/model"` (the model ID may contain slashes) or a reference object. */
function modelRef(model: ModelName) {
  if (model === undefined || typeof model !== "string") return model
  const slash = model.indexOf("/")
  if (slash <= 0 || slash === model.length - 1) return { providerID: "", modelID: model }
  return { providerID: model.slice(0, slash), modelID: model.slice(slash + 1) }
}
