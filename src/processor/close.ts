import type { Part, ReasoningPart, TextPart, ToolPart } from "../message/part.js"

/**
 * Closes what a stream left open, so a reloaded session shows what happened: text and
 * reasoning get an end time, tools still pending or running become interrupted errors.
 */
export async function closeUnfinished(input: {
  texts: Map<string, TextPart | ReasoningPart>
  tools: Map<string, ToolPart>
  write: (part: Part) => Promise<unknown>
}): Promise<void> {
  const now = Date.now()
  for (const part of input.texts.values()) {
    part.time = { start: part.time?.start ?? now, end: now }
    await input.write(part)
  }
  input.texts.clear()
  for (const part of input.tools.values()) {
    if (part.state.status !== "pending" && part.state.status !== "running") continue
    part.state = interrupted(part, now).state
    await input.write(part)
  }
}

/** The error of a call cut off because the process running it stopped (found by a later runtime). */
export const STOPPED_TOOL = "Tool execution was interrupted: the process running it stopped."

/**
 * A tool call that will never finish, as an error the model and a UI can read: cut off by a
 * cancel (the default error), or by a process that stopped (the repair's). Keeps its progress.
 */
export function interrupted(part: ToolPart, now: number, error = "Tool execution aborted"): ToolPart {
  const { state } = part
  if (state.status !== "pending" && state.status !== "running") return part
  return {
    ...part,
    state: {
      status: "error",
      input: state.input,
      error,
      metadata: { ...(state.status === "running" ? state.metadata : {}), interrupted: true },
      time: { start: state.status === "running" ? state.time.start : now, end: now },
    },
  }
}
