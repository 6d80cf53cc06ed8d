import { DeniedError } from "../permission/errors.js"
import type { Action } from "../schema/permission.js"
import type { Context } from "../tool/tool.js"
import { alwaysPatterns, type PathOptions, resolveTarget } from "./paths.js"

/** A file grep found matches in, with what the `read` rules say of it. */
export type ReadCheck = {
  /** Where it is, symlinks followed. */
  real: string
  /** The `read` patterns the read tool would ask with for this file. */
  patterns: string[]
  /** "ask" only where `context.evaluate` could tell; without it each file was asked already. */
  action: Action
}

/**
 * What the `read` rules say of each file grep found matches in: grep shows lines of a file, so
 * it may show only what the read tool could read. The patterns are the read tool's (the path
 * relative to the directory, both spellings of a link, the folded spelling where case is
 * ignored). A context without `evaluate` cannot say what the rules give without asking, so each
 * file then asks `read` on its own: what is allowed passes at once, a denial leaves it out.
 */
export async function checkRead<T extends { absolute: string }>(
  context: Context,
  files: readonly T[],
  options: PathOptions,
): Promise<(T & ReadCheck)[]> {
  const targets = await Promise.all(files.map((found) => resolveTarget(found.absolute, options)))
  const checked: (T & ReadCheck)[] = []
  for (const [index, found] of files.entries()) {
    const { real, patterns } = targets[index]!
    const action = context.evaluate
      ? strictest(await Promise.all(patterns.map((pattern) => context.evaluate!("read", pattern))))
      : await askEach(context, { real, patterns })
    checked.push({ ...found, real, patterns, action })
  }
  return checked
}

/**
 * One `read` request for every file the rules leave to ask, as the read tool would ask for each
 * (an "always" approves their folders). True when the files may be shown. A user's rejection or
 * correction fails the call as it fails a read; a denial (a headless runtime's policy for what
 * would ask) leaves the files out instead, as a rule denying them would.
 */
export async function askToRead(
  context: Context,
  files: readonly Pick<ReadCheck, "real" | "patterns">[],
): Promise<boolean> {
  if (files.length === 0) return true
  const patterns = [...new Set(files.flatMap((file) => file.patterns))]
  try {
    await context.ask({
      permission: "read",
      patterns,
      always: alwaysPatterns(patterns, "file"),
      metadata: { filepaths: files.map((file) => file.real) },
    })
    return true
  } catch (error) {
    if (DeniedError.isInstance(error)) return false
    throw error
  }
}

async function askEach(context: Context, file: Pick<ReadCheck, "real" | "patterns">): Promise<Action> {
  return (await askToRead(context, [file])) ? "allow" : "deny"
}

/** As `ask` decides over several patterns: one denied denies, one left to ask asks. */
function strictest(actions: Action[]): Action {
  if (actions.includes("deny")) return "deny"
  return actions.includes("ask") ? "ask" : "allow"
}
