import { z } from "zod"
import { NamedError } from "../index.js"

const MessageData = z.object({ message: z.string() })

/** The command line (or the environment it reads) asks for what cannot run; exit code 2. */
export class UsageError extends NamedError<"UsageError", z.infer<typeof MessageData>> {
  static override readonly errorName = "UsageError"
  static readonly Schema = z.object({ name: z.literal("UsageError"), data: MessageData })
}

const ModuleLoadData = z.object({ message: z.string(), path: z.string() })

/** The module to serve is missing, cannot be imported, or exports neither runtime options nor a runtime. */
export class ModuleLoadError extends NamedError<"ModuleLoadError", z.infer<typeof ModuleLoadData>> {
  static override readonly errorName = "ModuleLoadError"
  static readonly Schema = z.object({ name: z.literal("ModuleLoadError"), data: ModuleLoadData })
}
