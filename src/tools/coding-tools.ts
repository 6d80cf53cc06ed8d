import { InvalidInputError } from "../error/invalid-input.js"
import type { ToolInfo } from "../tool/tool.js"
import { sandboxOf } from "./bash/in-sandbox.js"
import { bashTool } from "./bash/index.js"
import { editTool } from "./edit.js"
import { globTool } from "./glob.js"
import { grepTool } from "./grep.js"
import type { NestedInstructions } from "./instructions/index.js"
import { listTool } from "./list.js"
import { localOperations } from "./local-operations.js"
import type { Operations } from "./operations.js"
import { GLOB_PACKAGES, requirePackages } from "./packages.js"
import { applyPatchTool, usesApplyPatch } from "./patch/index.js"
import { createPathLock } from "./path-lock.js"
import { readTool } from "./read.js"
import { ripgrepProbe } from "./ripgrep.js"
import { type SandboxOptions, sandboxOperations } from "./sandbox/index.js"
import { type WebFetchOptions, webfetchTool } from "./webfetch/index.js"
import { writeTool } from "./write.js"

/**
 * What `codingTools` and `codingPreset` take: the directory the tools work in, the operations
 * they act through (or the sandbox they make), and the bash tool's settings. See docs/tools.md.
 */
export type CodingToolsOptions = {
  /**
   * The directory the tools work in: relative paths resolve against it, permission patterns are
   * relative to it, and a path outside it asks `external_directory`. Default: process.cwd().
   * Pass the runtime's `directory` when it has one; the tools cannot see the runtime.
   */
  directory?: string
  /** Where files are read and commands run. Default: this machine (`localOperations`). */
  operations?: Operations
  /**
   * Work in a sandbox: the tools act through `sandboxOperations({ directory, ...sandbox })`
   * (`true`: its defaults). Throws SandboxUnavailableError when the sandbox cannot start, and
   * InvalidInputError together with `operations`. See docs/sandbox.md.
   */
  sandbox?: true | Omit<SandboxOptions, "directory">
  /**
   * When the operations are a sandbox: "ask" (default) asks `bash` and `external_directory` as
   * the rules say; "allow" runs what the rules leave to ask without asking (a denial still
   * refuses). See `BashToolOptions.inSandbox`.
   */
  bashInSandbox?: "ask" | "allow"
  /** The bash tool's `timeoutMs`: how long a command may run when the model gives no timeout; default 2 minutes. */
  bash?: { timeoutMs?: number }
  /**
   * Which tools change files: "auto" (default) offers `apply_patch` to the models trained on it
   * (OpenCode's rule, `usesApplyPatch`: OpenAI's GPT-5 family) and `edit` and `write` to the
   * others; "edit" or "patch" gives every model that set.
   */
  editTools?: "auto" | "edit" | "patch"
  /**
   * The `webfetch` tool's settings, or false to leave it out. It is left out as well when the
   * operations are a sandbox without network: the fetch runs in this process, not in the sandbox.
   */
  webfetch?: false | WebFetchOptions
  /**
   * The instruction files `read` attaches when it opens a file in a subfolder that has its own
   * `AGENTS.md` (`instructionFiles(...).nested`; the coding preset passes its own).
   */
  nestedInstructions?: NestedInstructions
}

/**
 * The built-in coding tools, bound to one directory and one set of operations: read, write,
 * edit, apply_patch, glob, grep, list, bash and webfetch. Each asks its permission on every
 * call; write, edit and apply_patch change one file at a time (bash is not held back by them).
 * Throws MissingPackageError when an optional package they need is not installed:
 * web-tree-sitter and tree-sitter-bash (bash), and with the local operations or the sandbox's,
 * tinyglobby (glob, grep); turndown (webfetch's markdown) is asked for at its first use. With
 * `sandbox`, throws SandboxUnavailableError when the sandbox cannot start.
 */
export function codingTools(options: CodingToolsOptions = {}): ToolInfo[] {
  const directory = options.directory ?? process.cwd()
  return toolsOn(options, directory, codingOperations(options, directory))
}

function toolsOn(options: CodingToolsOptions, directory: string, operations: Operations): ToolInfo[] {
  const sandbox = sandboxOf(operations)
  // The sandbox's glob is localOperations' own, confined.
  if (operations === localOperations || sandbox)
    requirePackages("the glob and grep tools on this machine", GLOB_PACKAGES)
  // One lock for every session and sub-agent using these tools: changes to one file queue.
  const shared = { directory, operations, lock: createPathLock() }
  // Probed once for these tools, on the machine the operations reach, when grep first runs.
  const hasRipgrep = ripgrepProbe(operations, directory)
  // webfetch runs in this process, outside any sandbox: only where the sandbox has network.
  const fetches = options.webfetch !== false && (sandbox === undefined || sandbox.network)
  return [
    readTool({
      ...shared,
      ...(options.nestedInstructions ? { instructions: options.nestedInstructions } : {}),
    }),
    ...editingTools(options.editTools ?? "auto", shared),
    globTool(shared),
    grepTool({ ...shared, hasRipgrep }),
    listTool(shared),
    bashTool({
      ...shared,
      ...(options.bash?.timeoutMs !== undefined ? { timeoutMs: options.bash.timeoutMs } : {}),
      ...(options.bashInSandbox ? { inSandbox: options.bashInSandbox } : {}),
    }),
    ...(fetches ? [webfetchTool(options.webfetch || {})] : []),
  ]
}

/** write and edit, or apply_patch, each offered to its models under "auto". */
function editingTools(
  choice: NonNullable<CodingToolsOptions["editTools"]>,
  shared: Parameters<typeof editTool>[0],
): ToolInfo[] {
  const patch = applyPatchTool(shared)
  if (choice === "patch") {
    const { offered: _forSome, ...forAll } = patch
    return [forAll]
  }
  const edits = [writeTool(shared), editTool(shared)]
  if (choice === "edit") return edits
  const notPatched = (model: { modelID: string }) => !usesApplyPatch(model.modelID)
  return [...edits.map((tool) => ({ ...tool, offered: notPatched })), patch]
}

/** The operations the tools act through: the given ones, this machine's, or a new sandbox's. */
export function codingOperations(options: CodingToolsOptions, directory: string): Operations {
  if (!options.sandbox) return options.operations ?? localOperations
  if (options.operations) {
    const message = "Give either operations or sandbox: the sandbox makes its own operations"
    throw new InvalidInputError({ message, issues: [{ path: "operations", message }] })
  }
  return sandboxOperations({ ...(options.sandbox === true ? {} : options.sandbox), directory })
}
