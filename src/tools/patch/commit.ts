import { PatchFailedError } from "../errors.js"
import type { Operations } from "../operations.js"
import type { FileWrite } from "./plan.js"

/**
 * Writes every file, then removes those the patch deletes or moves away. Should one fail, what
 * was already changed (and the file that failed, which a half-done write may have cut short) is
 * put back as it was, and the error is thrown again; if that too fails, PatchFailedError
 * "partial" names what may be left changed. Putting back takes no abort signal: an aborted call
 * must not leave half a patch.
 */
export async function commitWrites(
  writes: readonly FileWrite[],
  operations: Operations,
  signal: AbortSignal,
) {
  const ordered = [
    ...writes.filter((write) => write.data !== undefined),
    ...writes.filter((write) => write.data === undefined),
  ]
  const started: FileWrite[] = []
  try {
    for (const write of ordered) {
      started.push(write)
      const file = write.file.target.real
      if (write.data === undefined) await operations.remove!(file, { signal })
      else await operations.writeFile(file, write.data, { signal })
    }
  } catch (error) {
    const left = await putBack(started.reverse(), operations)
    if (left.length === 0) throw error
    const reason = error instanceof Error ? error.message : String(error)
    throw new PatchFailedError({
      message: `Patch failed part way (${reason}), and these files could not be put back as they were: ${left.join(", ")}`,
      reason: "partial",
      path: left[0]!,
    })
  }
}

/** Puts each file back as it was; returns the paths (as shown) it could not. */
async function putBack(writes: readonly FileWrite[], operations: Operations): Promise<string[]> {
  const left: string[] = []
  for (const { file, original } of writes) {
    try {
      if (original.bytes) await operations.writeFile(file.target.real, original.bytes)
      else if (await operations.stat(file.target.real)) {
        if (!operations.remove) throw new Error("these operations cannot remove files")
        await operations.remove(file.target.real)
      }
    } catch {
      left.push(file.target.display)
    }
  }
  return left
}
