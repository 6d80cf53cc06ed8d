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
    const { state } = part
    if (state.status !== "pending" && state.status !== "running") continue
    part.state = {
      status: "error",
      input: state.input,
      error: "Tool execution aborted",
      metadata: { ...(state.status === "running" ? state.metadata : {}), interrupted: true },
      time: { start: state.status === "running" ? state.time.start : now, end: now },
    }
    await input.write(part)
  }
}
