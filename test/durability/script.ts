import { type CallOptions, type ScriptStep, type StreamChunk, say } from "../../src/testing/index.js"
import type { PromptPlan, RunPlan } from "./plan.js"

/**
 * The scripted model for a plan, answering by what it is sent: for the latest question, a turn
 * that thinks, talks and calls the probe tool, then (once tool results came back) a turn that
 * thinks and answers. Deltas are spaced by pauses so that a fault can land in the middle of a
 * stream, not only between parts. A step cut by a fault and run again gets the same turn again.
 */
export function responderOf(plan: RunPlan): (call: CallOptions) => ScriptStep[] {
  return (call) => {
    const asked = call.prompt.findLastIndex((message) => message.role === "user")
    const question = JSON.stringify(call.prompt[asked]?.content ?? "")
    const prompt = plan.prompts.find((candidate) => question.includes(`Question ${candidate.index + 1}:`))
    if (!prompt) throw new Error(`the durability model cannot tell which question it was asked: ${question}`)
    const probed = call.prompt.slice(asked + 1).some((message) => message.role === "tool")
    return probed ? answerTurn(plan, prompt) : toolTurn(plan, prompt)
  }
}

function toolTurn(plan: RunPlan, prompt: PromptPlan): ScriptStep[] {
  const number = prompt.index + 1
  return [
    ...streamed("reasoning", `r${number}a`, `The user wants ${prompt.calls.length} probe(s).`, 3, plan.gapMs),
    say.delay(plan.gapMs),
    ...streamed("text", `t${number}a`, `Let me probe for question ${number}.`, 4, plan.gapMs),
    ...prompt.calls.map((call, index) => say.toolCall("probe", call, { id: `call-${number}-${index + 1}` })),
    say.usage({ input: 1_000 + 250 * prompt.index, output: 41, reasoning: 11, cacheRead: 300 }),
    // The tools run while the stream waits here; the step finishes after both.
    say.delay(plan.gapMs),
  ]
}

function answerTurn(plan: RunPlan, prompt: PromptPlan): ScriptStep[] {
  const number = prompt.index + 1
  return [
    ...streamed("reasoning", `r${number}b`, "The probes answered; time to report.", 2, plan.gapMs),
    ...streamed("text", `t${number}b`, prompt.answer, 5, plan.gapMs),
    say.usage({ input: 1_400 + 250 * prompt.index, output: 23, reasoning: 7, cacheWrite: 120 }),
  ]
}

/** A text or reasoning part streamed in `pieces` deltas with a pause between each. */
function streamed(kind: "text" | "reasoning", id: string, text: string, pieces: number, gapMs: number) {
  const size = Math.ceil(text.length / pieces)
  const steps: ScriptStep[] = [
    say.chunk(kind === "text" ? { type: "text-start", id } : { type: "reasoning-start", id }),
  ]
  for (let start = 0; start < text.length; start += size) {
    const delta = text.slice(start, start + size)
    const chunk: StreamChunk =
      kind === "text" ? { type: "text-delta", id, delta } : { type: "reasoning-delta", id, delta }
    if (start > 0) steps.push(say.delay(gapMs))
    steps.push(say.chunk(chunk))
  }
  steps.push(say.chunk(kind === "text" ? { type: "text-end", id } : { type: "reasoning-end", id }))
  return steps
}
