import type { ScriptStep, Turn } from "./script.js"

const TEXT_LENGTH = 40

/** A turn in a few words, for messages about a script: `toolCall refund, text "Done."`. */
export function summarizeTurn(turn: Turn): string {
  if (typeof turn === "function") return "a function of the call"
  if (!Array.isArray(turn)) return `throws ${String(turn.throws)}`
  const steps = turn.flatMap(summarizeStep)
  return steps.length > 0 ? steps.join(", ") : "nothing"
}

function summarizeStep(step: ScriptStep): string[] {
  switch (step.type) {
    case "text":
      return [`text ${quote(step.text)}`]
    case "reasoning":
      return [`reasoning ${quote(step.text)}`]
    case "tool-call":
      return [`toolCall ${step.toolName}`]
    case "finish":
      return [`finish ${step.reason}`]
    case "error":
      return [`error ${String(step.error)}`]
    case "chunk":
      return [`chunk ${step.chunk.type}`]
    default:
      // Usage and pauses say nothing about what the turn does.
      return []
  }
}

function quote(text: string): string {
  return JSON.stringify(text.length > TEXT_LENGTH ? `${text.slice(0, TEXT_LENGTH)}…` : text)
}
