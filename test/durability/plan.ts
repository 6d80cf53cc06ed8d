import { between, prng } from "./prng.js"

/**
 * What a child does in one trial, decided by the trial's seed. The parent derives the same plan
 * from the same seed, so it knows the prompts and answers the child's acknowledgements refer to.
 */
export type RunPlan = {
  prompts: PromptPlan[]
  /** Pause before each prompt: kills land between prompts too. */
  pauseMs: number
  /** Pause between streamed deltas: kills land mid-stream. */
  gapMs: number
  /** Pause before each storage write: kills land between the writes of one step. */
  writeDelayMs: number
  /** How long the permission handler takes to answer "once": kills land while a request waits. */
  answerDelayMs: number
  /**
   * How the checking runtime goes on after the kill: "loop" first continues a cut turn with
   * `session.loop()` (the cut turn's user message must get its answer), "prompt" moves on with a
   * new prompt straight away.
   */
  resume: "loop" | "prompt"
  /**
   * The fault the trial meets: a SIGKILL at its kill point, or ("busy") another process taking
   * the file's write lock at that point for `holdMs`, after which the child, which is not killed,
   * goes on: a lock outlasting the storage's retry bound fails its turn with a StorageError of
   * reason busy, and the child continues with `loop()` as a host would.
   */
  fault: { kind: "kill" } | { kind: "busy"; holdMs: number }
}

export type PromptPlan = {
  index: number
  question: string
  calls: ToolCallPlan[]
  answer: string
}

/** One call of the probe tool: its input. */
export type ToolCallPlan = { target: string; ask: boolean; workMs: number }

export const PROMPTS = 3

/**
 * The pauses are fixed and only the shape of each turn varies (one or two calls, asking or not),
 * so every child runs about as long as the one measured: kills drawn over that length cover
 * the whole run instead of falling after the end of shorter ones.
 */
export function planRun(seed: number): RunPlan {
  const random = prng(seed)
  const answerDelayMs = 60
  const prompts = Array.from({ length: PROMPTS }, (_, index): PromptPlan => {
    const calls = Array.from({ length: between(random, 1, 2) }, (_, call) => {
      const ask = random() < 0.6
      // A call that waits for its answer works that much less: each turn lasts about as long.
      const workMs = between(random, 100, 140) - (ask ? answerDelayMs : 0)
      return { target: `target-${index + 1}-${call + 1}`, ask, workMs }
    })
    return {
      index,
      question: questionText(index),
      calls,
      answer: `Answer ${index + 1}: probed ${calls.map((call) => call.target).join(" and ")}, all fine.`,
    }
  })
  const writeDelayMs = between(random, 6, 10)
  const resume = random() < 0.5 ? "loop" : "prompt"
  const busy = random() < 0.3
  const holdMs = between(random, 100, 1_200)
  const fault = busy ? { kind: "busy" as const, holdMs } : { kind: "kill" as const }
  return { prompts, pauseMs: 60, gapMs: 25, writeDelayMs, answerDelayMs, resume, fault }
}

export function questionText(index: number): string {
  return `Question ${index + 1}: please probe the targets and report.`
}
