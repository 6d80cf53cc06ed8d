import { MAX_BYTES, MAX_LINES } from "../../tool/truncate.js"
import type { ExecResult } from "../operations.js"
import { type OutputBuffer, tailBytes, tailOf } from "./output-buffer.js"

// Room kept under the tool output limits for the notes, so the runtime never cuts them off.
const SHOWN = { maxLines: MAX_LINES - 20, maxBytes: MAX_BYTES - 2 * 1024 }
/** How much of the output the tool part's metadata carries, while running and at the end. */
export const METADATA_BYTES = 30 * 1024

export type Report = { output: string; metadata: Record<string, unknown> }

/**
 * What the model reads after a command: the output (its end, when long, with the path of a file
 * holding all of it), then how it ended when that was not a plain success, and the `note`.
 */
export async function report(
  buffer: OutputBuffer,
  result: ExecResult & { timeoutMs: number; description: string; note?: string | undefined },
  save: (text: string) => Promise<string>,
): Promise<Report> {
  const full = buffer.text()
  const shown = tailOf(full, SHOWN)
  const saved = shown.truncated ? await trySave(save, savedText(full, buffer.droppedBytes)) : undefined
  const path = typeof saved === "string" ? saved : undefined
  const parts: string[] = []
  if (shown.truncated) parts.push(truncationNote(shown.omittedLines, saved))
  parts.push(full === "" ? "(no output)" : shown.text)
  const endings = [ending(result), result.note].filter((line) => line !== undefined)
  if (endings.length > 0) parts.push(endings.join("\n"))
  return {
    output: parts.join("\n\n"),
    metadata: {
      output: tailBytes(full, METADATA_BYTES),
      description: result.description,
      exit: result.exitCode,
      timedOut: result.timedOut,
      aborted: result.aborted,
      truncated: shown.truncated,
      ...(path === undefined ? {} : { outputPath: path }),
    },
  }
}

function ending(result: ExecResult & { timeoutMs: number }): string | undefined {
  if (result.timedOut)
    return `[The command timed out after ${result.timeoutMs} ms; its process tree was killed. Pass a larger timeout if it needs longer.]`
  if (result.aborted) return "[The command was aborted; its process tree was killed.]"
  if (result.exitCode !== 0) return `[Exit code: ${result.exitCode ?? "none (killed by a signal)"}]`
  return undefined
}

/** The path the full output was saved to, or why it could not be. */
async function trySave(save: (text: string) => Promise<string>, text: string): Promise<string | Error> {
  try {
    return await save(text)
  } catch (error) {
    // A port that refuses writes (a read-only sandbox) must not cost the command's result.
    return error instanceof Error ? error : new Error(String(error))
  }
}

function truncationNote(omittedLines: number, saved: string | Error | undefined): string {
  const head = `[Output truncated: the first ${omittedLines} line(s) are not shown;`
  if (typeof saved === "string")
    return `${head} full output in ${saved}. Read it with offset/limit or search it with grep instead of running the command again.]`
  return `${head} the full output could not be saved (${saved?.message}). Narrow the command's output instead.]`
}

function savedText(full: string, droppedBytes: number): string {
  if (droppedBytes === 0) return full
  return `[The first ${droppedBytes} bytes of output were not kept.]\n${full}`
}
