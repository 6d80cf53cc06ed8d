import type { InstructionSource } from "../agent/instructions.js"
import { CompactionConfig, type CompactionConfigInput } from "../compaction/config.js"
import type { Hooks } from "../processor/hooks.js"
import type { Ruleset } from "../schema/permission.js"
import type { ToolErrorHandler } from "../tool/tool-error.js"
import type { LoopDeps } from "./loop-deps.js"
import { RetryOptions, type RetryOptionsInput } from "./retry.js"
import { createTurnInstructions } from "./turn-instructions.js"

/** The runtime options the loop reads, as given (see RuntimeOptions for each). */
export type LoopOptions = {
  retry?: RetryOptionsInput | undefined
  streamIdleTimeoutMs?: number | undefined
  permission?: Ruleset | undefined
  instructions?: readonly (string | InstructionSource)[] | undefined
  git?: boolean | undefined
  environment?: "date" | "workspace" | "none" | undefined
  titles?: boolean | undefined
  hooks?: Hooks | undefined
  onToolError?: ToolErrorHandler | undefined
  compaction?: CompactionConfigInput | undefined
  rejection?: "stop" | "continue" | undefined
}

type Settings = Pick<
  LoopDeps,
  | "retry"
  | "streamIdleTimeoutMs"
  | "permissionRules"
  | "instructions"
  | "git"
  | "environment"
  | "titles"
  | "hooks"
  | "onToolError"
  | "compaction"
  | "rejection"
>

/** The loop's settings with their defaults (the runtime adds its model stream). */
export function loopSettings(options: LoopOptions): Settings {
  // Parsed once per runtime: building zod's compiled parsers would cost more than they save.
  return {
    retry: RetryOptions.parse(options.retry ?? {}, { jitless: true }),
    streamIdleTimeoutMs: options.streamIdleTimeoutMs,
    permissionRules: options.permission ?? [],
    instructions: createTurnInstructions(options.instructions ?? []),
    git: options.git,
    environment: options.environment ?? "date",
    titles: options.titles,
    hooks: options.hooks ?? {},
    onToolError: options.onToolError,
    compaction: CompactionConfig.parse(options.compaction ?? {}, { jitless: true }),
    rejection: options.rejection ?? "stop",
  }
}
