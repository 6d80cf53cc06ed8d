import { z } from "zod"
import { NamedError } from "../error/named-error.js"

const ToolUnknownData = z.object({
  message: z.string(),
  toolName: z.string(),
  /** The turn of the script (from 1) that made the call. */
  turn: z.number().int().positive(),
  /** The tools the model call offered, sorted. */
  offered: z.array(z.string()),
})

/**
 * A scripted turn calls a tool the runtime lacks (a misspelt name, a tool not registered): the
 * model call fails with it, so the turn ends with it as its error, and `verify()` throws it.
 */
export class ScriptedToolUnknownError extends NamedError<
  "ScriptedToolUnknownError",
  z.infer<typeof ToolUnknownData>
> {
  static override readonly errorName = "ScriptedToolUnknownError"
  static readonly Schema = z.object({ name: z.literal("ScriptedToolUnknownError"), data: ToolUnknownData })

  static of(toolName: string, turn: number, offered: string[]): ScriptedToolUnknownError {
    const tools =
      offered.length > 0 ? `the request offered: ${offered.join(", ")}` : "the request offered no tools"
    return new ScriptedToolUnknownError({
      message: `scripted call of ${JSON.stringify(toolName)} in turn ${turn}, but the runtime has no such tool; ${tools}`,
      toolName,
      turn,
      offered,
    })
  }
}

const TurnsUnusedData = z.object({
  message: z.string(),
  /** The turns (from 1) no model call played. */
  unused: z.array(z.number().int().positive()),
  played: z.number().int().nonnegative(),
  scripted: z.number().int().nonnegative(),
})

/** `verify()` found scripted turns no model call played: the test ran fewer steps than scripted. */
export class ScriptedTurnsUnusedError extends NamedError<
  "ScriptedTurnsUnusedError",
  z.infer<typeof TurnsUnusedData>
> {
  static override readonly errorName = "ScriptedTurnsUnusedError"
  static readonly Schema = z.object({ name: z.literal("ScriptedTurnsUnusedError"), data: TurnsUnusedData })

  static of(unused: { turn: number; summary: string }[], scripted: number): ScriptedTurnsUnusedError {
    const list = unused.map(({ turn, summary }) => `turn ${turn} [${summary}]`).join(", ")
    return new ScriptedTurnsUnusedError({
      message: `${unused.length} of ${scripted} scripted turns were never played: ${list}`,
      unused: unused.map(({ turn }) => turn),
      played: scripted - unused.length,
      scripted,
    })
  }
}
