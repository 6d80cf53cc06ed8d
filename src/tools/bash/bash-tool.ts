import { randomBytes } from "node:crypto"
import { homedir, tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { z } from "zod"
import { type Context, define, type ToolInfo } from "../../tool/tool.js"
import type { Operations } from "../operations.js"
import { askToRun } from "./ask.js"
import { bashDescription } from "./description.js"
import { WorkdirError } from "./errors.js"
import { type SandboxFacts, sandboxNote, sandboxOf } from "./in-sandbox.js"
import { createOutputBuffer } from "./output-buffer.js"
import { createShellParser } from "./parser.js"
import { createProgress } from "./progress.js"
import { METADATA_BYTES, report } from "./report.js"

export const DEFAULT_TIMEOUT_MS = 2 * 60 * 1000
export const MAX_TIMEOUT_MS = 10 * 60 * 1000

/**
 * What `bashTool` takes: the project directory, the operations the command runs through, and
 * the default timeout, output folder and home directory. See docs/tools.md#bash.
 */
export type BashToolOptions = {
  /** The project directory: commands run here, and paths outside it ask `external_directory`. */
  directory: string
  /** Where commands run and files are read and written: the local machine, a container… */
  operations: Operations
  /** How long a command may run when the model gives no timeout; default 2 minutes. */
  timeoutMs?: number
  /**
   * Where the full output of a truncated command is saved, through `operations`; default a new
   * folder `agentloop-bash-<random>` in the OS temp directory, or, when `operations` is a sandbox,
   * `.agentloop/bash-output` in the directory (its own `.gitignore` hides it from git), where the
   * model reads it back through the sandbox.
   */
  outputDir?: string
  /** What `~` and `$HOME` stand for in path arguments; default the current user's home. */
  home?: string
  /**
   * When `operations` is a sandbox (`sandboxOperations`): "ask" (default) asks as the rules say,
   * as anywhere; "allow" runs what the rules leave to ask (`bash` and `external_directory`)
   * without asking, since the sandbox decides what the command can reach. What the rules deny
   * is refused either way. Ignored for operations that are not a sandbox.
   */
  inSandbox?: "ask" | "allow"
}

const BashParameters = z.object({
  command: z.string().min(1).describe("The command to run"),
  timeout: z.number().int().positive().optional().describe("Optional timeout in milliseconds"),
  description: z
    .string()
    .describe("What the command does in 5-10 words, e.g. 'Shows working tree status' for git status"),
  workdir: z
    .string()
    .optional()
    .describe("The directory to run the command in; default the project directory. Use instead of cd."),
})

/**
 * The arguments the model gives the `bash` tool: the command line, a short description (the
 * part's title), and optionally a `workdir` and a `timeout` in milliseconds. A `workdir` that is
 * not an existing directory fails the call with WorkdirError (`BashWorkdirError`).
 */
export type BashParameters = z.infer<typeof BashParameters>

/** The `bash` tool: runs a command line after asking permission for every command in it. */
export function bashTool(options: BashToolOptions): ToolInfo<typeof BashParameters> {
  const defaultTimeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  const parser = createShellParser()
  const sandbox = sandboxOf(options.operations)
  const outputDir = options.outputDir ?? defaultOutputDir(sandbox)
  const home = options.home ?? homedir()
  const sandboxAllowed = sandbox !== undefined && options.inSandbox === "allow"

  return define("bash", {
    description: bashDescription({ defaultTimeoutMs, maxTimeoutMs: MAX_TIMEOUT_MS }),
    parameters: BashParameters,
    async execute(args, context) {
      const workdir = resolve(options.directory, args.workdir ?? ".")
      const { operations, directory } = options
      if ((await operations.stat(workdir))?.type !== "directory") throw WorkdirError.notADirectory(workdir)
      const parse = await parser()
      await askToRun(context, { ...args, directory, workdir, home, operations, parse, sandboxAllowed })
      const timeoutMs = Math.min(args.timeout ?? defaultTimeoutMs, Math.max(MAX_TIMEOUT_MS, defaultTimeoutMs))
      const saved = await run(operations, args, { workdir, timeoutMs, context, outputDir, sandbox })
      return { title: args.description, ...saved }
    },
  })
}

/**
 * A sandbox's commands and file tools reach neither the host's temp directory nor their own
 * (gone with each command): the output goes in the directory, in a folder git leaves out.
 */
function defaultOutputDir(sandbox: SandboxFacts | undefined): string {
  if (sandbox) return join(sandbox.directory, SANDBOX_OUTPUT_DIR)
  return join(tmpdir(), `agentloop-bash-${randomBytes(6).toString("hex")}`)
}

/** Where, in a sandbox's directory, truncated output goes by default. */
const SANDBOX_OUTPUT_DIR = join(".agentloop", "bash-output")

async function run(
  operations: Operations,
  args: BashParameters,
  at: { workdir: string; timeoutMs: number; context: Context; outputDir: string; sandbox?: SandboxFacts },
) {
  const { context, timeoutMs } = at
  const buffer = createOutputBuffer()
  const progress = createProgress(context, args.description)
  await progress.start()
  const result = await operations.exec(args.command, {
    cwd: at.workdir,
    signal: context.abort,
    timeoutMs,
    ...(context.protectedPaths ? { protectedPaths: context.protectedPaths } : {}),
    onData(text) {
      buffer.append(text)
      progress.update(() => buffer.tail(METADATA_BYTES))
    },
  })
  await progress.settled()
  const note = sandboxNote(at.sandbox, result)
  return report(buffer, { ...result, timeoutMs, description: args.description, note }, async (text) => {
    const path = join(
      at.outputDir,
      `${context.callID.replace(/[^\w-]/g, "_")}-${randomBytes(4).toString("hex")}.txt`,
    )
    await operations.writeFile(path, text)
    if (at.sandbox && !(await operations.stat(join(at.outputDir, ".gitignore"))))
      await operations.writeFile(join(at.outputDir, ".gitignore"), "*\n")
    return path
  })
}
