import { type Invocation, invocationsOf } from "./invocations.js"
import type { Parse, Script } from "./script.js"

/** Marks the pattern of a command line that did not parse; no "always" approval can match it. */
export const UNPARSED = "<unparsed>"

/** What the bash tool asks the `bash` permission for one command line. */
export type BashPatterns = {
  /** One pattern per way of writing each program the line runs; each one must be allowed. */
  patterns: string[]
  /** What an "always" answer approves: each program's prefix by arity (`git commit *`). */
  always: string[]
  /** The programs found, for the path checks. */
  invocations: Invocation[]
}

/**
 * The patterns for a command line. Every simple command found anywhere (lists, pipelines,
 * subshells, substitutions, bodies, `bash -c` scripts) gives its own patterns, with whitespace
 * and quoting normalised and wrappers peeled off (`sudo /bin/rm  'x'` asks `sudo /bin/rm x`,
 * `sudo rm x`, `/bin/rm x` and `rm x`).
 *
 * A line with a syntax error asks with the line itself (so rules on its start still apply), with
 * whatever commands could be recovered (so a deny on any of them applies), and with the line
 * behind {@link UNPARSED}, which no approval and no prefix rule matches: such a line always asks
 * unless a rule allows every command, and it offers nothing to approve "always".
 */
export function bashPatterns(command: string, script: Script, parse: Parse): BashPatterns {
  const invocations = invocationsOf(script, parse)
  const forms = invocations.flatMap((invocation) => invocation.forms)
  const line = normalise(command)
  if (!script.complete) {
    const patterns = [line, `${UNPARSED} ${line}`, ...forms.map((form) => form.pattern)]
    return { patterns: unique(patterns), always: [], invocations }
  }
  if (forms.length === 0) return { patterns: [line], always: [], invocations }
  return {
    patterns: unique(forms.map((form) => form.pattern)),
    always: unique(forms.flatMap((form) => (form.approval === undefined ? [] : [form.approval]))),
    invocations,
  }
}

/** Runs of whitespace become one space, so a rule on `rm *` is not escaped by tabs or leading spaces. */
function normalise(command: string): string {
  return command.trim().replace(/\s+/g, " ")
}

function unique(values: string[]): string[] {
  return [...new Set(values)]
}
