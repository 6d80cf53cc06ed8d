import { z } from "zod"
import { NamedError } from "../error/named-error.js"

const FileNotFoundData = z.object({
  message: z.string(),
  path: z.string(),
  /** Names in the same directory that look like what was asked for. */
  suggestions: z.array(z.string()),
})

/** The file a tool was asked for does not exist; the message lists similar names the model may have meant. */
export class FileNotFoundError extends NamedError<"FileNotFoundError", z.infer<typeof FileNotFoundData>> {
  static override readonly errorName = "FileNotFoundError"
  static readonly Schema = z.object({ name: z.literal("FileNotFoundError"), data: FileNotFoundData })

  static of(path: string, suggestions: string[] = []): FileNotFoundError {
    const hint = suggestions.length > 0 ? `\n\nDid you mean one of these?\n${suggestions.join("\n")}` : ""
    return new FileNotFoundError({ message: `File not found: ${path}${hint}`, path, suggestions })
  }
}

const FileKindData = z.object({
  message: z.string(),
  path: z.string(),
  /** What the tool found there. */
  kind: z.enum(["binary", "directory", "not-a-file", "too-large", "not-utf8"]),
})

/** The path exists but holds something the tool cannot work with (binary data, a directory, a huge file). */
export class UnsupportedFileError extends NamedError<"UnsupportedFileError", z.infer<typeof FileKindData>> {
  static override readonly errorName = "UnsupportedFileError"
  static readonly Schema = z.object({ name: z.literal("UnsupportedFileError"), data: FileKindData })

  static of(path: string, kind: z.infer<typeof FileKindData>["kind"], detail: string): UnsupportedFileError {
    return new UnsupportedFileError({ message: `${detail}: ${path}`, path, kind })
  }
}

const EditFailedData = z.object({
  message: z.string(),
  path: z.string(),
  reason: z.enum(["not-found", "ambiguous", "no-change"]),
})

/** An edit that cannot be applied as asked: oldString is missing, matches several places, or changes nothing. */
export class EditFailedError extends NamedError<"EditFailedError", z.infer<typeof EditFailedData>> {
  static override readonly errorName = "EditFailedError"
  static readonly Schema = z.object({ name: z.literal("EditFailedError"), data: EditFailedData })
}

const UnsafePathData = z.object({ message: z.string(), path: z.string() })

/**
 * A path whose destination cannot be known before acting on it, such as a symbolic link whose
 * target the operations cannot resolve: following it could land anywhere, so the tool refuses.
 */
export class UnsafePathError extends NamedError<"UnsafePathError", z.infer<typeof UnsafePathData>> {
  static override readonly errorName = "UnsafePathError"
  static readonly Schema = z.object({ name: z.literal("UnsafePathError"), data: UnsafePathData })
}

const InvalidPatternData = z.object({ message: z.string(), pattern: z.string() })

/** A glob or regular expression the model gave cannot be used (bad syntax, or it reaches out of the directory). */
export class InvalidPatternError extends NamedError<
  "InvalidPatternError",
  z.infer<typeof InvalidPatternData>
> {
  static override readonly errorName = "InvalidPatternError"
  static readonly Schema = z.object({ name: z.literal("InvalidPatternError"), data: InvalidPatternData })
}

const MissingPackageData = z.object({
  message: z.string(),
  /** The packages that are not installed. */
  packages: z.array(z.string()),
  /** The command that installs what the feature needs. */
  install: z.string(),
})

/**
 * A feature was configured whose optional packages (peer dependencies of agentloop-sdk) are not
 * installed; thrown when it is set up (`codingTools()`), not when the model first uses it.
 */
export class MissingPackageError extends NamedError<
  "MissingPackageError",
  z.infer<typeof MissingPackageData>
> {
  static override readonly errorName = "MissingPackageError"
  static readonly Schema = z.object({ name: z.literal("MissingPackageError"), data: MissingPackageData })

  static of(feature: string, packages: string[], needed: readonly string[]): MissingPackageError {
    const install = `npm install ${needed.join(" ")}`
    const message = `Missing ${packages.join(" and ")}, needed by ${feature}: ${install}`
    return new MissingPackageError({ message, packages, install })
  }
}

const ProtectedPathData = z.object({ message: z.string(), path: z.string() })

/**
 * The path is where the runtime keeps its own data (`Tool.Context.protectedPaths`: the
 * snapshot's git dir, the session database), which no tool may read or change: an agent that
 * could would rewrite its own history or approvals.
 */
export class ProtectedPathError extends NamedError<"ProtectedPathError", z.infer<typeof ProtectedPathData>> {
  static override readonly errorName = "ProtectedPathError"
  static readonly Schema = z.object({ name: z.literal("ProtectedPathError"), data: ProtectedPathData })

  static of(path: string): ProtectedPathError {
    return new ProtectedPathError({
      message: `Refused: ${path} holds the runtime's own data (its sessions or snapshots); no tool may read or change it.`,
      path,
    })
  }
}

const PatchFailedData = z.object({
  message: z.string(),
  /**
   * Why: "parse" (not in the patch format), "empty" (no file in it), "context" (an `@@` line not
   * found), "lines" (a chunk's old lines not found), "missing-file" (a file to update, move or
   * delete is not there), "remove-unsupported" (a delete or move, and the operations cannot
   * remove files), "partial" (a write failed and what was already changed could not all be put back).
   */
  reason: z.enum(["parse", "empty", "context", "lines", "missing-file", "remove-unsupported", "partial"]),
  /** The file the failure is about, as the patch names it (relative to the directory when inside). */
  path: z.string().optional(),
})

/**
 * An `apply_patch` call that changed nothing: the patch cannot be read, or does not fit the files
 * as they are (reason "partial" alone says some files may be left changed, and names them).
 */
export class PatchFailedError extends NamedError<"PatchFailedError", z.infer<typeof PatchFailedData>> {
  static override readonly errorName = "PatchFailedError"
  static readonly Schema = z.object({ name: z.literal("PatchFailedError"), data: PatchFailedData })
}
