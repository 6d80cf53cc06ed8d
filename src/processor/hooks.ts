import type { AgentInfo } from "../agent/info.js"
import type { WithParts } from "../message/info.js"
import type { ModelInfo } from "../provider/model-info.js"
import type { Result } from "../tool/tool.js"
import type { StreamInput } from "./stream-input.js"

/**
 * What a hook returns: nothing the loop uses, but a promise it waits for. Not `void | Promise<void>`,
 * which refuses hooks people write: `(input, output) => output.system.push(text)` returns a number,
 * and only a bare `void` return type lets that through (which would not say a promise is awaited).
 */
type HookResult = unknown

/**
 * Plug-in points of the loop. Each hook gets what happened (`input`) and an `output` it may
 * change in place; the loop then uses the changed output. `input.abort` aborts when the run is
 * cancelled or the runtime closes: the loop stops waiting for the hook then, so a hook that
 * never settles cannot hold a session busy, and should stop its own work on that signal.
 */
export type Hooks = {
  /**
   * A user message before it is stored: change its parts (e.g. expand a template). No run exists
   * yet: `abort` aborts on a cancel of the session or the prompt's own signal too, and the
   * prompt then rejects having stored nothing.
   */
  "chat.message"?: (
    input: { sessionID: string; agent: string; abort: AbortSignal },
    output: WithParts,
  ) => HookResult
  /** The sampling settings of a model call. */
  "chat.params"?: (
    input: { sessionID: string; agent: AgentInfo; model: ModelInfo; abort: AbortSignal },
    output: Pick<StreamInput, "temperature" | "topP" | "providerOptions">,
  ) => HookResult
  /** The system prompt of a model call, as blocks. */
  "chat.system"?: (
    input: { sessionID: string; agent: AgentInfo; model: ModelInfo; abort: AbortSignal },
    output: { system: string[] },
  ) => HookResult
  /** A tool's validated arguments, before it runs: change them, or throw to refuse the call. */
  "tool.before"?: (
    input: { sessionID: string; tool: string; callID: string; abort: AbortSignal },
    output: { args: unknown },
  ) => HookResult
  /** A tool's result, before it is stored and shown to the model. */
  "tool.after"?: (
    input: { sessionID: string; tool: string; callID: string; abort: AbortSignal },
    output: Result,
  ) => HookResult
  /** A finished text part, before it is stored. */
  "text.complete"?: (
    input: { sessionID: string; messageID: string; partID: string; abort: AbortSignal },
    output: { text: string },
  ) => HookResult
}
