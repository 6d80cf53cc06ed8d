import type { Runtime } from "../runtime/runtime.js"
import type { Event } from "../schema/events.js"
import type { PromptInput } from "../schema/prompt.js"
import type { UIChunk } from "./ui-chunk.js"
import { createUIChunks } from "./ui-chunks.js"

/**
 * What `toUIMessageStream` streams: a session of a runtime, either a new prompt's run (`parts`,
 * `prompt`) or the run under way, until `signal` aborts. A prompt the runtime refuses (an
 * unknown agent or model) ends the stream with an `error` chunk. See docs/ui.md.
 */
export type UIMessageStreamOptions = {
  /** The runtime whose session is streamed. */
  runtime: Runtime
  /** The session to prompt or follow. */
  sessionID: string
  /**
   * Prompts the session with these parts and streams that run. Without them the stream follows
   * the run under way, and ends at once when the session is idle.
   */
  parts?: PromptInput["parts"]
  /** The rest of the prompt (agent, model, system, tools, variant), when `parts` are given. */
  prompt?: Omit<PromptInput, "sessionID" | "parts">
  /** Ends the stream; the run goes on (cancel it with `runtime.session.cancel`). */
  signal?: AbortSignal
}

/**
 * A session's run as an AI SDK UI message stream, the one `useChat` reads: one assistant message
 * whose steps are the run's model calls, with text and reasoning streaming, tool parts in their
 * states, `data-permission` and `data-question` parts for the requests a UI answers (a
 * sub-agent's included), `data-retry`, `data-compaction` and `data-patch` notes, and the
 * answer's metadata (`MessageV2.UIMetadata`). It ends when the session goes idle, the prompt
 * settles, the runtime closes, the signal aborts or the reader cancels; neither of the last two
 * cancels the run.
 */
export function toUIMessageStream(options: UIMessageStreamOptions): ReadableStream<UIChunk> {
  const { runtime, sessionID } = options
  const stop = new AbortController()
  // Stopped by the signal or the reader: the run is not waited for. Gone: the reader cancelled.
  let stopped = false
  let readerGone = false
  const cancel = () => {
    stopped = true
    stop.abort()
  }
  options.signal?.addEventListener("abort", cancel, { once: true })
  if (options.signal?.aborted) cancel()
  // Subscribed before the prompt is stored, so that no event of the run is missed.
  const events = runtime.events.stream({ signal: stop.signal })[Symbol.asyncIterator]()

  return new ReadableStream<UIChunk>({
    start(controller) {
      void pump(controller).finally(() => options.signal?.removeEventListener("abort", cancel))
    },
    cancel() {
      readerGone = true
      cancel()
    },
  })

  async function pump(controller: ReadableStreamDefaultController<UIChunk>): Promise<void> {
    const chunks = createUIChunks()
    const write = (list: UIChunk[]) => {
      if (!readerGone) for (const chunk of list) controller.enqueue(chunk)
    }
    try {
      const prompted = startPrompt()
      // A refused prompt starts no run, so no idle comes: the prompt's end ends the stream too.
      void prompted?.then(() => stop.abort())
      const family = new Set([sessionID])
      for (let next = await events.next(); !next.done; next = await events.next()) {
        const event = next.value
        if (!concerns(event, sessionID, family)) continue
        write(chunks.accept(event))
        if (event.type === "session.idle" && event.properties.sessionID === sessionID) break
      }
      const failure = stopped ? undefined : await prompted
      if (failure !== undefined) write(chunks.fail(failure.error))
      write(chunks.end())
    } catch (error) {
      write(chunks.fail(error))
      write(chunks.end())
    } finally {
      await events.return?.()
      if (!readerGone) controller.close()
    }
  }

  /** The prompt's failure once it settles, or undefined; without parts, ends an idle session's stream. */
  function startPrompt(): Promise<{ error: unknown } | undefined> | undefined {
    if (!options.parts) {
      if (runtime.session.status(sessionID).type === "idle") stop.abort()
      return undefined
    }
    const input = { ...options.prompt, sessionID, parts: options.parts }
    return runtime.session.prompt(input).then(
      () => undefined,
      (error: unknown) => ({ error }),
    )
  }
}

/**
 * The session's own events, and the permission and question requests of its sub-agents' sessions,
 * which the page must answer as well. `family` grows as sub-agent sessions are created.
 */
function concerns(event: Event, root: string, family: Set<string>): boolean {
  const sessionID = (event.properties as { sessionID?: string }).sessionID
  if (sessionID === undefined || !family.has(sessionID)) {
    if (event.type === "session.created" && event.properties.info.parentID !== undefined)
      if (family.has(event.properties.info.parentID)) family.add(event.properties.info.id)
    return false
  }
  if (sessionID === root) return true
  return event.type.startsWith("permission.") || event.type.startsWith("question.")
}
