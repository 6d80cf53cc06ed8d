import type { Parse, Script } from "./script.js"
import type { Word } from "./words.js"

const SHELLS = new Set(["bash", "sh", "zsh", "dash", "ksh"])
const FIND_ACTIONS = new Set(["-exec", "-execdir", "-ok", "-okdir"])

/**
 * Commands a program runs from its arguments, so that `bash -c 'rm x'`, `eval "rm x"`,
 * `env -S 'rm x'` and `find . -exec rm {} ;` ask for `rm` too. Only literal text can be followed;
 * a script held in a variable stays behind the program's own pattern.
 */
export function nestedCommands(program: Word[], parse: Parse): { scripts: Script[]; commands: Word[][] } {
  const name = program[0]?.kind === "literal" ? program[0].value : ""
  const script = (text: string | undefined) => ({ scripts: text ? [parse(text)] : [], commands: [] })
  if (SHELLS.has(name)) return script(shellScript(program))
  if (name === "eval") return script(literalText(program.slice(1)))
  if (name === "env") return script(splitString(program))
  if (name === "find") return { scripts: [], commands: findActions(program) }
  return { scripts: [], commands: [] }
}

/** The script of `bash -c SCRIPT`, `sh -ec SCRIPT`, `bash -o pipefail -c SCRIPT`. */
function shellScript(program: Word[]): string | undefined {
  let command = false
  for (let index = 1; index < program.length; index++) {
    const word = program[index]!
    if (word.kind !== "literal") return undefined
    const option = word.value
    if (/^[-+][oO]$/.test(option)) index++
    else if (/^[-+][^-]/.test(option)) command ||= option.startsWith("-") && option.includes("c")
    else if (option === "--" || option === "-") continue
    else return command ? option : undefined
  }
  return undefined
}

function literalText(words: Word[]): string | undefined {
  if (words.length === 0 || words.some((word) => word.kind !== "literal")) return undefined
  return words.map((word) => word.value).join(" ")
}

/** `env -S 'rm x'` splits its argument into a command line. */
function splitString(program: Word[]): string | undefined {
  const index = program.findIndex((word) => word.value === "-S" || word.value === "--split-string")
  if (index >= 0) return literalText(program.slice(index + 1, index + 2))
  const attached = program.find((word) => /^(-S.|--split-string=)/.test(word.value))
  return attached ? attached.value.replace(/^(-S|--split-string=)/, "") : undefined
}

/** The commands of `-exec … ;` and `-exec … +`. */
function findActions(program: Word[]): Word[][] {
  const commands: Word[][] = []
  for (let index = 1; index < program.length; index++) {
    if (!FIND_ACTIONS.has(program[index]!.value)) continue
    const end = program.findIndex((word, at) => at > index && (word.value === ";" || word.value === "+"))
    const stop = end < 0 ? program.length : end
    commands.push(program.slice(index + 1, stop))
    index = stop
  }
  return commands
}
