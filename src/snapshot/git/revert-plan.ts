import { z } from "zod"

/**
 * A path as patches hold it: relative to the tracked directory, `/`-separated, and inside it.
 * Checked because revert deletes files by these names.
 */
export const RelativePath = z
  .string()
  .min(1)
  .refine(
    (file) =>
      !file.includes("\0") &&
      !file.startsWith("/") &&
      !/^[a-zA-Z]:/.test(file) &&
      !file.split(/[/\\]/).some((segment) => segment === ".." || segment.toLowerCase() === ".git"),
    "must be a relative path inside the directory, not in a .git directory",
  )

export const Patches = z.array(z.object({ hash: z.string(), files: z.array(RelativePath) }))

/**
 * Which state each file goes back to: the hash of the first patch naming it (a session
 * reverting to a message passes its patches oldest first, so each file goes back to how it
 * was before the earliest of them touched it). Returns files grouped by hash, so that each
 * state costs one git call whatever its number of files.
 */
export function planRevert(patches: z.infer<typeof Patches>): Map<string, string[]> {
  const claimed = new Set<string>()
  const plan = new Map<string, string[]>()
  for (const patch of patches) {
    for (const file of patch.files) {
      if (claimed.has(file)) continue
      claimed.add(file)
      const files = plan.get(patch.hash) ?? []
      files.push(file)
      plan.set(patch.hash, files)
    }
  }
  return plan
}
