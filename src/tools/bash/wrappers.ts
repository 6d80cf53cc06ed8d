import type { Word } from "./words.js"

/**
 * Commands that run another command given as their arguments (`sudo rm x` runs `rm x`), with the
 * options that take a value, so that the wrapped command can be found after them. A deny rule
 * written for `rm` must not be escaped by putting `sudo`, `env` or `nohup` in front.
 */
type Wrapper = {
  /** Options followed by a value (`-u root`); a short one may also carry it attached (`-uroot`). */
  valued: readonly string[]
  /** `NAME=value` words may come before the command. */
  assignments?: boolean
  /** Arguments before the command that are not options (`timeout 5 cmd`). */
  positionals?: number
}

const WRAPPERS: Record<string, Wrapper> = {
  builtin: { valued: [] },
  command: { valued: [] },
  doas: { valued: ["-u", "-C"] },
  env: { valued: ["-u", "-C", "-S", "--unset", "--chdir", "--split-string"], assignments: true },
  exec: { valued: ["-a"] },
  ionice: { valued: ["-c", "-n", "--class", "--classdata"] },
  nice: { valued: ["-n", "--adjustment"] },
  nohup: { valued: [] },
  setsid: { valued: [] },
  stdbuf: { valued: ["-i", "-o", "-e", "--input", "--output", "--error"] },
  sudo: {
    valued: [
      "-u",
      "-g",
      "-C",
      "-D",
      "-h",
      "-p",
      "-r",
      "-t",
      "-U",
      "-T",
      "-R",
      "--user",
      "--group",
      "--chdir",
    ],
    assignments: true,
  },
  time: { valued: ["-f", "-o", "--format", "--output"] },
  timeout: { valued: ["-s", "-k", "--signal", "--kill-after"], positionals: 1 },
  xargs: {
    valued: ["-I", "-L", "-n", "-P", "-s", "-d", "-E", "-a", "--arg-file", "--delimiter", "--max-args"],
  },
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/

/** Whether the word is a `NAME=value` prefix. */
export function isAssignment(word: Word): boolean {
  return word.kind !== "dynamic" && ASSIGNMENT.test(word.value)
}

/**
 * How many leading words wrap the command that actually runs: `NAME=value` prefixes, or a
 * wrapper with its options (`sudo -u root`). Undefined when nothing wraps it or nothing is
 * wrapped (`sudo -l`). The first word is expected without its directory (`sudo`, not `/usr/bin/sudo`).
 */
export function wrapped(words: readonly Word[]): number | undefined {
  const assignments = leadingAssignments(words, 0)
  if (assignments > 0) return assignments < words.length ? assignments : undefined
  const first = words[0]
  // Own keys only: `toString x` or `constructor x` must not find Object's members.
  const wrapper =
    first?.kind === "literal" && Object.hasOwn(WRAPPERS, first.value) ? WRAPPERS[first.value] : undefined
  if (!wrapper) return undefined
  let index = skipOptions(words, 1, wrapper.valued)
  if (wrapper.assignments) index = leadingAssignments(words, index)
  index += wrapper.positionals ?? 0
  return index < words.length ? index : undefined
}

function leadingAssignments(words: readonly Word[], from: number): number {
  let index = from
  while (index < words.length && isAssignment(words[index]!)) index++
  return index
}

/** The index after the options, reading them as getopt does. */
function skipOptions(words: readonly Word[], from: number, valued: readonly string[]): number {
  let index = from
  while (index < words.length) {
    const option = words[index]!.value
    if (option === "--") return index + 1
    if (!option.startsWith("-") || option === "-") return index
    index += takesNextWord(option, valued) ? 2 : 1
  }
  return index
}

function takesNextWord(option: string, valued: readonly string[]): boolean {
  if (option.startsWith("--")) return !option.includes("=") && valued.includes(option)
  // A cluster such as `-Eu root`: the first letter that takes a value takes the rest of the word,
  // or the next word when it is the last letter.
  for (let index = 1; index < option.length; index++) {
    if (valued.includes(`-${option[index]}`)) return index === option.length - 1
  }
  return false
}
