import * as fs from "node:fs/promises"
import * as path from "node:path"
import type { Operations } from "../operations.js"
import type { SandboxUser } from "./options.js"

/**
 * The file operations of an agent running as root, whose commands run as `user`: what a write
 * makes (the file, and folders it needed) belongs to the user, as if a command had written it,
 * so that the next command can change it. Ownership is set on the path without following a
 * link in its last step; the file a command may swap in meanwhile is one of its own (the
 * kernel's protected_hardlinks keeps it from linking another's).
 */
export function ownedFiles(files: Omit<Operations, "exec">, user: SandboxUser): Omit<Operations, "exec"> {
  return {
    ...files,
    async writeFile(file, data, options) {
      const absolute = path.resolve(file)
      const made = await missingFolders(path.dirname(absolute))
      await files.writeFile(absolute, data, options)
      for (const folder of [...made, absolute]) await fs.lchown(folder, user.uid, user.gid)
    },
  }
}

/** The folders of `folder`'s path that do not exist yet, outermost first. */
async function missingFolders(folder: string): Promise<string[]> {
  const missing: string[] = []
  for (let at = folder; ; at = path.dirname(at)) {
    const exists = await fs.lstat(at).then(
      () => true,
      () => false,
    )
    if (exists || path.dirname(at) === at) break
    missing.unshift(at)
  }
  return missing
}
