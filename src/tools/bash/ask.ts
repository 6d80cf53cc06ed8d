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
  /**
   * The command runs in a sandbox the host lets it run in unasked (`inSandbox: "allow"`): what
   * the rules leave to ask runs without asking; what they deny is still refused.
   */
  sandboxAllowed?: boolean
}

type Request = Parameters<Context["ask"]>[0]

/**
 * The permission checks before a command runs, as OpenCode makes them: first
 * `external_directory` for a workdir or path arguments outside the directory, then `bash` with
 * one pattern per command found. Throws when any is refused.
 */
export async function askToRun(context: Pick<Context, "ask" | "evaluate">, input: AskInput): Promise<void> {
  const script = input.parse(input.command)
  const bash = bashPatterns(input.command, script, input.parse)
  const external = await externalDirectories(bash.invocations, script.redirects, input)
  const metadata = { command: input.command, description: input.description, workdir: input.workdir }
  const requests: Request[] = [
    ...(external.length > 0
      ? [{ permission: "external_directory", patterns: external, always: external, metadata }]
      : []),
    { permission: "bash", patterns: bash.patterns, always: bash.always, metadata },
  ]
  for (const request of requests)
    if (!(input.sandboxAllowed && (await deniesNone(context, request)))) await context.ask(request)
}

/**
 * Whether the rules deny none of the request's patterns. Without `evaluate` nothing can be told
 * without asking, so the request is asked; with a denial it is asked too, which refuses it with
 * the rules' own DeniedError.
 */
async function deniesNone(context: Pick<Context, "evaluate">, request: Request): Promise<boolean> {
  if (!context.evaluate) return false
  const actions = await Promise.all(
    request.patterns.map((pattern) => context.evaluate!(request.permission, pattern)),
  )
  return !actions.includes("deny")
}
