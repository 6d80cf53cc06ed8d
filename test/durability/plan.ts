import { between, prng, type Random } from "./prng.js"

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
   * The fault the trial meets (see FaultKind). Only a "kill" trial's child is killed; in the
   * others it lives on: a fault outlasting the storage's retry bound fails its turn with a
   * StorageError, and the child continues with `loop()` as a host would.
   */
  fault: Fault
}

/**
 * The faults a trial can meet, at its random moment:
 * - "kill": SIGKILL.
 * - "busy": this process takes the SQLite file's write lock for `holdMs`.
 * - "full": the child's SQLite file is on a small tmpfs, which this process fills; once the child
 *   met the full disk (a turn failed with reason "full"), the space is freed `holdMs` later.
 * - "pg-terminate": the child runs on PostgreSQL, whose backends serving it this process
 *   terminates (pg_terminate_backend).
 * - "pg-restart": the child runs on PostgreSQL, whose server this process restarts.
 */
export const FAULT_KINDS = ["kill", "busy", "full", "pg-terminate", "pg-restart"] as const
export type FaultKind = (typeof FAULT_KINDS)[number]
export type Fault =
  | { kind: "kill" | "pg-terminate" | "pg-restart" }
  | { kind: "busy"; holdMs: number }
  | { kind: "full"; holdMs: number }

/** How often each fault is drawn: half the trials kill, the new fault modes take 15% each. */
const WEIGHTS: Record<FaultKind, number> = {
  kill: 0.5,
  busy: 0.2,
  full: 0.15,
  "pg-terminate": 0.075,
  "pg-restart": 0.075,
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
export function planRun(seed: number, faults: readonly FaultKind[] = FAULT_KINDS): RunPlan {
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
  // Drawn last: the child, which is not told `faults`, derives the same turns from the seed.
  const fault = drawFault(random, faults)
  return { prompts, pauseMs: 60, gapMs: 25, writeDelayMs, answerDelayMs, resume, fault }
}

/** A fault among `faults`, by their weights (so a subset gives other seeds other faults). */
function drawFault(random: Random, faults: readonly FaultKind[]): Fault {
  const total = faults.reduce((sum, kind) => sum + WEIGHTS[kind], 0)
  const drawn = random() * total
  let below = 0
  const kind =
    faults.find((candidate) => {
      below += WEIGHTS[candidate]
      return drawn < below
    }) ??
    faults.at(-1) ??
    "kill"
  const holdMs = between(random, 100, 1_200)
  if (kind === "busy") return { kind, holdMs }
  // The disk stays full a little longer than the child's first failed turn.
  if (kind === "full") return { kind, holdMs: Math.round(holdMs / 4) }
  return { kind }
}

export function questionText(index: number): string {
  return `Question ${index + 1}: please probe the targets and report.`
}
