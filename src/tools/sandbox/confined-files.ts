import { randomBytes } from "node:crypto"
import { constants } from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { localOperations, removeFile, resolveLinks } from "../local-operations.js"
import type { Operations } from "../operations.js"
import { SandboxPathError } from "./errors.js"
import { within } from "./roots.js"

/** Where file operations may act: real paths (symlinks resolved). */
export type Roots = { writable: readonly string[]; readable: readonly string[] }

/**
 * `Operations`' file half, run in the host process but held to the sandbox's paths: each path
 * is resolved (every symlink, `..`) right before the operation and must lie in a writable root
 * to be written, in a writable or readable one to be read, listed or resolved
 * (SandboxPathError otherwise). Reads do not follow a link in the last step; writes go to a new
 * file renamed over the target, so a symlink or hard link there is replaced, never written
 * through. What remains (a folder swapped for a link between the check and the use) is in
 * docs/sandbox.md.
 */
export function confinedFiles(roots: Roots): Omit<Operations, "exec"> {
  const readable = [...roots.writable, ...roots.readable]
  const resolveIn = async (file: string, access: "read" | "write") => {
    const resolved = await resolveLinks(path.resolve(file), 0)
    const allowed = access === "write" ? roots.writable : readable
    if (!within(resolved, allowed)) throw SandboxPathError.outside(file, resolved, access, allowed)
    return resolved
  }

  /** The path with its folder's links resolved, held to the writable roots; the last step as named. */
  const lastStepIn = async (file: string) => {
    const absolute = path.resolve(file)
    const folder = await resolveLinks(path.dirname(absolute), 0)
    const target = path.join(folder, path.basename(absolute))
    if (!within(folder, roots.writable)) throw SandboxPathError.outside(file, target, "write", roots.writable)
    return { folder, target }
  }

  return {
    async readFile(file, options) {
      // O_NONBLOCK: a FIFO a command left in the directory must not hang the host on open.
      const flags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK
      const handle = await fs.open(await resolveIn(file, "read"), flags)
      try {
        return new Uint8Array(await handle.readFile({ signal: options?.signal }))
      } finally {
        await handle.close()
      }
    },

    async writeFile(file, data, options) {
      // The last step is not followed: a link there is replaced (see replaceFile).
      const { folder, target } = await lastStepIn(file)
      await fs.mkdir(folder, { recursive: true })
      await replaceFile(target, data, options?.signal)
    },

    async remove(file, options) {
      options?.signal?.throwIfAborted()
      // As a write: the last step is not followed, so a link there is removed, not its target.
      await removeFile((await lastStepIn(file)).target)
    },

    stat: async (file) => localOperations.stat(await resolveIn(file, "read")),
    async realpath(file) {
      // The folders above a root are there in the sandbox too (empty but for the root), and a
      // tool resolving an outside path walks up through them: it then meets the refusal of the
      // operation itself, which names the path it was given.
      const resolved = await resolveLinks(path.resolve(file), 0)
      if (readable.some((root) => within(root, [resolved]))) return resolved
      return resolveIn(file, "read")
    },
    list: async (folder, options) => localOperations.list(await resolveIn(folder, "read"), options),

    async glob(pattern, options) {
      const cwd = await resolveIn(options.cwd, "read")
      const found = await localOperations.glob(pattern, { ...options, cwd })
      return reachedWithin(cwd, found, readable)
    },
  }
}

/**
 * The matches whose folder lies in `roots`. localOperations' glob follows no link it meets, but
 * tinyglobby starts its walk at a pattern's fixed folder ("out/*" in `out`), link or not: a
 * match reached so is dropped unnamed, since a refusal would name a file outside.
 */
async function reachedWithin(cwd: string, found: string[], roots: readonly string[]): Promise<string[]> {
  const folders = new Map<string, Promise<boolean>>()
  const inside = (folder: string) => {
    let known = folders.get(folder)
    if (!known) {
      known = resolveLinks(path.join(cwd, folder), 0).then((real) => within(real, roots))
      folders.set(folder, known)
    }
    return known
  }
  const kept = await Promise.all(found.map((file) => inside(path.dirname(file))))
  return found.filter((_, index) => kept[index])
}

/**
 * Writes a new file beside `target` and renames it over: a link at `target` is replaced, and
 * the file it pointed to (outside, perhaps) keeps its content. An existing file keeps its
 * permission bits (not set-user-ID or set-group-ID, which a write clears too).
 */
async function replaceFile(target: string, data: Uint8Array | string, signal: AbortSignal | undefined) {
  const existing = await fs.lstat(target).catch(() => undefined)
  const temp = path.join(path.dirname(target), `.agentloop-${randomBytes(6).toString("hex")}.tmp`)
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW
  const handle = await fs.open(temp, flags, 0o666)
  try {
    try {
      if (existing?.isFile()) await handle.chmod(existing.mode & 0o777)
      await handle.writeFile(data, { signal })
    } finally {
      await handle.close()
    }
    await fs.rename(temp, target)
  } catch (error) {
    await fs.rm(temp, { force: true })
    throw error
  }
}
