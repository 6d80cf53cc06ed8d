import type { Context } from "../../tool/tool.js"
import type { Operations } from "../operations.js"
import { externalDirectories } from "./external-paths.js"
import { bashPatterns } from "./patterns.js"
import type { Parse } from "./script.js"

export type AskInput = {
  command: string
  description: string
  directory: string
  workdir: string
  home: string
  operations: Operations
  parse: Parse
}

/**
 * The permission checks before a command runs, as OpenCode makes them: first
 * `external_directory` for a workdir or path arguments outside the directory, then `bash` with
 * one pattern per command found. Throws when any is refused.
 */
export async function askToRun(context: Pick<Context, "ask">, input: AskInput): Promise<void> {
  const script = input.parse(input.command)
  const bash = bashPatterns(input.command, script, input.parse)
  const external = await externalDirectories(bash.invocations, script.redirects, input)
  const metadata = { command: input.command, description: input.description, workdir: input.workdir }
  if (external.length > 0)
    await context.ask({ permission: "external_directory", patterns: external, always: external, metadata })
  await context.ask({ permission: "bash", patterns: bash.patterns, always: bash.always, metadata })
}
