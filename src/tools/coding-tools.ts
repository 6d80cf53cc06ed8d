import type { Info } from "../tool/tool.js"
import { bashTool } from "./bash/index.js"
import { editTool } from "./edit.js"
import { globTool } from "./glob.js"
import { grepTool } from "./grep.js"
import { listTool } from "./list.js"
import { localOperations } from "./local-operations.js"
import type { Operations } from "./operations.js"
import { GLOB_PACKAGES, requirePackages } from "./packages.js"
import { createPathLock } from "./path-lock.js"
import { readTool } from "./read.js"
import { ripgrepProbe } from "./ripgrep.js"
import { writeTool } from "./write.js"

/**
 * What `codingTools` and `codingPreset` take: the directory the tools work in, the operations
 * they act through, and the bash tool's default timeout. See docs/tools.md.
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
  /** The bash tool's `timeoutMs`: how long a command may run when the model gives no timeout; default 2 minutes. */
  bash?: { timeoutMs?: number }
}

/**
 * The built-in coding tools, bound to one directory and one set of operations: read, write,
 * edit, glob, grep, list and bash. Each asks its permission on every call; write and edit change
 * one file at a time (bash is not held back by them). Throws MissingPackageError when an
 * optional package they need is not installed: web-tree-sitter and tree-sitter-bash (bash), and
 * with the local operations, tinyglobby (glob, grep).
 */
export function codingTools(options: CodingToolsOptions = {}): Info[] {
  const directory = options.directory ?? process.cwd()
  const operations = options.operations ?? localOperations
  if (operations === localOperations)
    requirePackages("the glob and grep tools with localOperations", GLOB_PACKAGES)
  // One lock for every session and sub-agent using these tools: write and edit of one file queue.
  const shared = { directory, operations, lock: createPathLock() }
  // Probed once for these tools, on the machine the operations reach, when grep first runs.
  const hasRipgrep = ripgrepProbe(operations, directory)
  return [
    readTool(shared),
    writeTool(shared),
    editTool(shared),
    globTool(shared),
    grepTool({ ...shared, hasRipgrep }),
    listTool(shared),
    bashTool({
      ...shared,
      ...(options.bash?.timeoutMs !== undefined ? { timeoutMs: options.bash.timeoutMs } : {}),
    }),
  ]
}
