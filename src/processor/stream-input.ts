import type { ModelMessage, streamText } from "ai"
import type { Ruleset } from "../schema/permission.js"
import type { ToolInfo } from "../tool/tool.js"

/** One model call: the AI SDK `streamText` settings, with our tools and the rules their `ask` uses. */
export type StreamInput = {
  messages: ModelMessage[]
  system?: string
  tools?: ToolInfo[]
  ruleset?: Ruleset
  temperature?: number
  topP?: number
  maxOutputTokens?: number
  toolChoice?: Parameters<typeof streamText>[0]["toolChoice"]
  providerOptions?: Parameters<typeof streamText>[0]["providerOptions"]
  headers?: Record<string, string>
  /**
   * This call's telemetry metadata (`ai.telemetry.metadata.*` on its spans), under the runtime's
   * own (a key the host set wins): the loop gives each step its session ID, agent and step number.
   */
  metadata?: Record<string, string | number>
}

/** What the loop should do next: go on, stop (error or rejection), or compact the context first. */
export type ProcessResult = "continue" | "stop" | "compact"
