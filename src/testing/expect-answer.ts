import { z } from "zod"
import { NamedError } from "../error/named-error.js"
import { answerText } from "../loop/turn-result.js"
import type { WithParts } from "../message/info.js"
import type { ToolPart } from "../message/part.js"
import type { Answer } from "../message/throw-if-failed.js"
import type { TurnFinish } from "../schema/turn-result.js"

/**
 * What `prompt` resolves with: the final message, and, from a turn result, why the turn ended
 * (`finish`). The final message alone, as stored, will do.
 */
export type TurnOutcome = WithParts & { finish?: TurnFinish }

/** The finish reasons of a turn that answered. */
const ANSWERED = new Set(["stop", "structured-output"])

const Data = z.object({
  message: z.string(),
  /** The turn result's finish reason, else the final message's (`error` or `aborted` when it stored an error). */
  finish: z.string(),
  /** The tool whose refused or failed call ended the turn. */
  tool: z.string().optional(),
  error: z.object({ name: z.string(), message: z.string() }).optional(),
})

/** A test expected the turn to answer, and it ended otherwise: the message says how. */
export class TurnEndedEarlyError extends NamedError<"TurnEndedEarlyError", z.infer<typeof Data>> {
  static override readonly errorName = "TurnEndedEarlyError"
  static readonly Schema = z.object({ name: z.literal("TurnEndedEarlyError"), data: Data })
}

/**
 * The prompt's result, typed as an assistant's answer, when the turn answered (finish "stop",
 * or a structured answer); throws TurnEndedEarlyError saying why otherwise: the finish reason,
 * the stored error, the refused or failed call, and the text so far.
 */
export function expectAnswer<T extends TurnOutcome>(result: T): T & Answer {
  const { info } = result
  if (info.role !== "assistant") {
    throw new TurnEndedEarlyError({
      message: "the prompt got no reply: its result is the user message (a prompt with noReply?)",
      finish: "no-reply",
    })
  }
  const { finish: ended } = result
  const error = ended && "error" in ended ? ended.error : info.error
  const finish = ended?.reason ?? (error ? errorReason(error.name) : (info.finish ?? "none"))
  if ((ANSWERED.has(finish) || info.structured !== undefined) && !error) return result as T & Answer
  const cause = error ? { name: error.name, message: messageOf(error.data) } : undefined
  const call = cause ? undefined : endingCall(result)
  const text = answerText(result.parts)
  throw new TurnEndedEarlyError({
    message:
      `the turn ended with finish ${JSON.stringify(finish)}` +
      (cause ? `: ${cause.name}: ${cause.message}` : (call?.detail ?? "")) +
      (text ? `; its text: ${JSON.stringify(text)}` : ""),
    finish,
    ...(call ? { tool: call.tool } : {}),
    ...(cause ? { error: cause } : {}),
  })
}

/** The text of the turn's answer (its final message's text parts); throws as `expectAnswer` does when it ended early. */
export function turnText(result: TurnOutcome): string {
  return answerText(expectAnswer(result).parts)
}

function errorReason(name: string): string {
  return name === "AbortedError" ? "aborted" : "error"
}

/** The call that ended the turn: a refused one (by the turn result, or its part), else the last failed one. */
function endingCall(result: TurnOutcome): { tool: string; detail: string } | undefined {
  const { finish } = result
  if (finish?.reason === "rejected")
    return { tool: finish.tool, detail: ` after the ${finish.by} refused the call of ${finish.tool}` }
  const failed = result.parts.filter(
    (part): part is ToolPart & { state: { status: "error" } } =>
      part.type === "tool" && part.state.status === "error",
  )
  const refused = failed.find((part) => refusedBy(part) !== undefined)
  if (refused)
    return {
      tool: refused.tool,
      detail: ` after the ${refusedBy(refused)} refused the call of ${refused.tool}`,
    }
  const last = failed.at(-1)
  return last
    ? { tool: last.tool, detail: ` after the call of ${last.tool} failed: ${last.state.error}` }
    : undefined
}

/** Who refused the call, when its state says (a refusal by a rule goes back to the model, so it ends nothing). */
function refusedBy(part: ToolPart & { state: { status: "error" } }): string | undefined {
  // Read structurally: stored messages from before `refusedBy` existed lack it.
  const by = (part.state as { refusedBy?: unknown }).refusedBy
  return by === "user" || by === "host" ? by : undefined
}

function messageOf(data: unknown): string {
  const message =
    typeof data === "object" && data !== null ? (data as { message?: unknown }).message : undefined
  return typeof message === "string" ? message : ""
}
