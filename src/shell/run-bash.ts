import type { ToolPart } from "../message/part.js"
import { runTool } from "../tool/ai-tools.js"
import type { Context, ToolInfo } from "../tool/tool.js"
import { errorMessage } from "../tool/tool-error.js"
import type { RunningToolPart } from "./messages.js"

/** Where the call is recorded and what it may reach: its running part, and how to store it. */
export type BashCall = {
  part: RunningToolPart
  agent: string
  directory: string
  signal: AbortSignal
  /** Stores the part (and publishes it). */
  write(part: ToolPart): Promise<unknown>
  newPartID(): string
}

/**
 * Runs the `bash` tool for a command the user typed and returns its part, completed with what
 * the tool returned or failed with what it threw. The user asked for the command, so its
 * permission asks are allowed at once; its progress updates the running part.
 */
export async function runBash(bash: ToolInfo, call: BashCall): Promise<ToolPart> {
  const { part } = call
  const running = part.state
  let current: ToolPart = part
  let finished = false
  const context: Context = {
    sessionID: part.sessionID,
    messageID: part.messageID,
    callID: part.callID,
    agent: call.agent,
    directory: call.directory,
    abort: call.signal,
    async metadata(update) {
      // An update that arrives once the call has ended must not reopen its part.
      if (finished || current.state.status !== "running") return
      current = { ...current, state: { ...current.state, ...update } }
      await call.write(current)
    },
    ask: async () => undefined,
  }
  // The stored input is the command alone; the tool also requires a description.
  const input = { ...running.input, description: "" }
  try {
    const result = await runTool(bash, input, context)
    finished = true
    const attachments = result.attachments?.map((file) => ({
      id: call.newPartID(),
      sessionID: part.sessionID,
      messageID: part.messageID,
      type: "file" as const,
      ...file,
    }))
    return {
      ...current,
      state: {
        status: "completed",
        input: running.input,
        output: result.output,
        title: result.title,
        metadata: result.metadata,
        ...(result.structured === undefined ? {} : { structured: result.structured }),
        ...(attachments ? { attachments } : {}),
        time: { start: running.time.start, end: Date.now() },
      },
    }
  } catch (error) {
    finished = true
    const metadata = current.state.status === "running" ? current.state.metadata : undefined
    return {
      ...current,
      state: {
        status: "error",
        input: running.input,
        error: errorMessage(error),
        ...(metadata ? { metadata } : {}),
        time: { start: running.time.start, end: Date.now() },
      },
    }
  }
}
