import { resolve } from "node:path"
import type { Operations } from "../operations.js"
import {
  defaultCaseInsensitive,
  externalPatterns,
  isWithin,
  type PathOptions,
  resolveTarget,
} from "../paths.js"
import { SandboxPathError } from "../sandbox/errors.js"
import type { Invocation } from "./invocations.js"
import type { Word } from "./words.js"

/**
 * Programs whose arguments are paths (after the options). Not every program: `grep pattern` or
 * `sed script` take other things first, and a command in general may name anything, so this is
 * a guard against the common slips, not a sandbox.
 */
const PATH_PROGRAMS = new Set([
  ...["cd", "pushd", "ls", "cat", "head", "tail", "less", "more", "stat", "file", "du", "wc"],
  ...["rm", "rmdir", "unlink", "shred", "cp", "mv", "ln", "install", "mkdir", "touch", "truncate", "tee"],
  ...["chmod", "chown", "chgrp", "realpath", "readlink"],
])

export type PathContext = {
  /** The directory the tools work in; what lies outside it asks `external_directory`. */
  directory: string
  /** Where the command runs; relative paths resolve against it. */
  workdir: string
  /** Expands `~` and `$HOME`. */
  home: string
  operations: Operations
}

/**
 * The `external_directory` patterns (`<dir>/*`, as the file tools ask them) for the workdir and
 * the paths a command line names, when they lie outside the directory: path arguments of the
 * programs above and the targets of redirections. Paths resolve against the workdir, with `..`
 * and symlinks resolved; a file stands for its folder. Arguments built at run time (`$DIR/x`,
 * `$(pwd)`) cannot be resolved and are not checked.
 */
export async function externalDirectories(
  invocations: readonly Invocation[],
  redirects: readonly Word[],
  context: PathContext,
): Promise<string[]> {
  const options = { directory: context.directory, operations: context.operations }
  const found = new Set(await outsidePatterns(context.workdir, options))
  const words = [...invocations.flatMap((invocation) => pathArguments(invocation.program)), ...redirects]
  for (const word of words) {
    const path = staticPath(word, context.home)
    if (path === undefined) continue
    for (const pattern of await outsidePatterns(resolve(context.workdir, path), options)) found.add(pattern)
  }
  return [...found]
}

async function outsidePatterns(path: string, options: PathOptions): Promise<string[]> {
  // A sandbox's port reaches nothing outside its paths, yet its commands see the system
  // folders: what it refuses to resolve is asked for as written, and the sandbox decides.
  const target = await resolveTarget(path, options).catch(unlessRefused)
  if (!target) return asWritten(path, options.directory)
  if (target.inside) return []
  const stat = await options.operations.stat(target.real).catch(unlessRefused)
  return externalPatterns(target, stat?.type === "directory" ? "directory" : "file", defaultCaseInsensitive())
}

function unlessRefused(error: unknown): undefined {
  if (SandboxPathError.isInstance(error)) return undefined
  throw error
}

/**
 * The `external_directory` pattern of a path the port would not resolve: its folder, when it
 * lies outside the directory as written (links in it are not followed).
 */
function asWritten(path: string, directory: string): string[] {
  if (isWithin(path, resolve(directory))) return []
  return externalPatterns({ outside: [path] }, "file", defaultCaseInsensitive())
}

/** The words of a path program that name paths: its operands, skipping options until `--`. */
function pathArguments(program: readonly Word[]): Word[] {
  const [name, ...rest] = program
  if (name?.kind !== "literal" || !PATH_PROGRAMS.has(name.value)) return []
  const operands: Word[] = []
  let options = true
  for (const word of rest) {
    if (options && word.value === "--") options = false
    else if (!options || !/^[-+]./.test(word.value)) operands.push(word)
  }
  // A bare `cd` goes home.
  if (name.value === "cd" && operands.length === 0) return [{ raw: "~", value: "~", kind: "pattern" }]
  return operands
}

/** The path a word names when it can be told without running anything; `~` and `$HOME` expand. */
function staticPath(word: Word, home: string): string | undefined {
  if (word.kind === "dynamic") {
    const match = /^(\$HOME|\$\{HOME\})(\/[^$`]*)?$/.exec(word.raw)
    return match ? home + (match[2] ?? "") : undefined
  }
  if (word.kind === "pattern" && (word.value === "~" || word.value.startsWith("~/")))
    return home + word.value.slice(1)
  return word.value
}
