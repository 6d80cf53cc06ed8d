import { arityOf } from "./arity.js"
import { nestedCommands } from "./nested.js"
import type { Parse, Script } from "./script.js"
import type { Word } from "./words.js"
import { wrapped } from "./wrappers.js"

/** One way of writing a command, for a permission pattern, and what "always" would approve for it. */
export type Form = { pattern: string; approval: string | undefined }

/** A program a command line runs. */
export type Invocation = {
  /**
   * Every way of writing it, outermost first: as written, without the name's directory, and
   * without each wrapper (`sudo /bin/rm x`, `sudo rm x`, `/bin/rm x`, `rm x`), so that a rule on
   * any of them applies.
   */
  forms: Form[]
  /** The program that runs in the end, its name without directory, and its arguments. */
  program: Word[]
}

// Scripts inside scripts (`bash -c "eval '…'"`) are followed this deep.
const MAX_DEPTH = 4

/** The programs of a parsed script, including those run by `bash -c`, `eval` and `find -exec`. */
export function invocationsOf(script: Script, parse: Parse, depth = 0): Invocation[] {
  return script.commands.flatMap((command) =>
    invocationOf([...command.assignments, ...command.words], parse, depth),
  )
}

function invocationOf(words: Word[], parse: Parse, depth: number): Invocation[] {
  if (words.length === 0) return []
  const forms: Form[] = []
  let current = words
  for (;;) {
    const named = withBaseName(current)
    forms.push(formOf(current), formOf(named))
    const start = named[0]?.kind === "literal" ? wrapped(named) : undefined
    if (start === undefined) {
      const nested = depth < MAX_DEPTH ? nestedCommands(named, parse) : { scripts: [], commands: [] }
      return [
        { forms, program: named },
        ...nested.scripts.flatMap((script) => invocationsOf(script, parse, depth + 1)),
        ...nested.commands.flatMap((command) => invocationOf(command, parse, depth + 1)),
      ]
    }
    current = named.slice(start)
  }
}

function formOf(words: Word[]): Form {
  return { pattern: words.map((word) => word.value).join(" "), approval: approvalOf(words) }
}

/** `/bin/rm` runs `rm`: rules name commands without their directory. */
function withBaseName(words: Word[]): Word[] {
  const [name, ...rest] = words
  if (name?.kind !== "literal" || !name.value.includes("/") || name.value.endsWith("/")) return words
  const base = name.value.slice(name.value.lastIndexOf("/") + 1)
  return [{ ...name, value: base }, ...rest]
}

// Words that can stand in a prefix: no spaces, quotes, wildcards or expansions.
const PLAIN = /^[\w./+@%:,=~-]+$/

/**
 * What "always" approves for a command: its arity prefix then anything (`git commit *`), behind
 * the same wrappers (`sudo rm *`). When a prefix word is an option, dynamic or unusual
 * (`git -C dir status`), only the command exactly; nothing when even that would hold a wildcard
 * or an expansion, or when the name itself is unusual (`$TOOL x`, `'my tool' x`).
 */
export function approvalOf(words: Word[]): string | undefined {
  const named = withBaseName(words)
  const start = named[0]?.kind === "literal" ? wrapped(named) : undefined
  const exact = words.map((word) => word.value).join(" ")
  const unsafe = /[*?]/.test(exact) || words.some((word) => word.kind === "dynamic")
  // A name outside PLAIN gets nothing: so no approval can start like "<unparsed> …".
  const exactly = unsafe || !PLAIN.test(named[0]?.value ?? "") ? undefined : exact
  if (start !== undefined) {
    const head = words.slice(0, start)
    const inner = approvalOf(words.slice(start))
    if (head.some((word) => word.kind !== "literal") || inner === undefined) return exactly
    return [...head.map((word) => word.value), inner].join(" ")
  }
  const arity = arityOf(named.map((word) => word.value))
  const prefix = words.slice(0, arity)
  const plain = prefix.every((word, index) => {
    if (word.kind !== "literal" || !PLAIN.test(word.value)) return false
    return index === 0 || !word.value.startsWith("-")
  })
  return plain ? `${prefix.map((word) => word.value).join(" ")} *` : exactly
}
