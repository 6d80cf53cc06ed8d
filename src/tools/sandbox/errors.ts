import { z } from "zod"
import { NamedError } from "../../error/named-error.js"

const SandboxUnavailableData = z.object({
  message: z.string(),
  /**
   * What stops it: no bwrap binary ("missing"), user namespaces off or restricted
   * ("namespaces"), a platform other than Linux ("platform"), an agent running as root with no
   * ordinary user for commands to run as, or one that cannot write the sandbox's paths ("root"),
   * or bwrap failing otherwise ("failed").
   */
  reason: z.enum(["missing", "namespaces", "platform", "root", "failed"]),
  /** What to do about it. */
  fix: z.string(),
})

/**
 * `sandboxOperations` cannot start its sandbox here; the message says what is missing and how
 * to fix it. There is no fallback: running commands unconfined is the host's explicit choice
 * (`localOperations`).
 */
export class SandboxUnavailableError extends NamedError<
  "SandboxUnavailableError",
  z.infer<typeof SandboxUnavailableData>
> {
  static override readonly errorName = "SandboxUnavailableError"
  static readonly Schema = z.object({
    name: z.literal("SandboxUnavailableError"),
    data: SandboxUnavailableData,
  })

  static of(
    reason: z.infer<typeof SandboxUnavailableData>["reason"],
    problem: string,
    fix: string,
  ): SandboxUnavailableError {
    return new SandboxUnavailableError({
      message: `The sandbox cannot start: ${problem}\n${fix}`,
      reason,
      fix,
    })
  }
}

const SandboxPathData = z.object({
  message: z.string(),
  /** The path as it was given. */
  path: z.string(),
  reason: z.literal("outside"),
})

/**
 * A file operation of `sandboxOperations` (or a command's working directory) lands outside the
 * paths the sandbox reaches: the path itself, a symlink on the way, or a `..` leads out. The
 * tool call fails with this message, which the model reads.
 */
export class SandboxPathError extends NamedError<"SandboxPathError", z.infer<typeof SandboxPathData>> {
  static override readonly errorName = "SandboxPathError"
  static readonly Schema = z.object({ name: z.literal("SandboxPathError"), data: SandboxPathData })

  /** `path` resolved to `resolved`, which none of `roots` holds; `access` is what was refused. */
  static outside(
    path: string,
    resolved: string,
    access: "read" | "write" | "run",
    roots: readonly string[],
  ): SandboxPathError {
    const leads = resolved === path ? "" : ` (it leads to ${resolved})`
    const verb = { read: "reads", write: "writes", run: "runs commands" }[access]
    const message = `Refused: ${path} is outside the sandbox${leads}. The sandbox ${verb} only in ${roots.join(", ")}.`
    return new SandboxPathError({ message, path, reason: "outside" })
  }
}
