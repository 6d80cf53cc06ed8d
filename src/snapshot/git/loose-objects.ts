import { createHash, randomBytes } from "node:crypto"
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import path from "node:path"
import { deflateSync, inflateSync } from "node:zlib"

/** One entry of a tree object: git's mode ("100644", "40000"...), the name's raw bytes, the object's id. */
export type TreeEntry = { mode: string; name: Buffer; oid: string }

export const TREE_MODE = "40000"

/**
 * Objects smaller than a file system block take a block however well they compress, so they are
 * written as a stored zlib stream: compressing them took zlib longer than writing the file,
 * and most objects a step writes are trees and short files.
 */
const BLOCK = 4096

/** Trees kept parsed: enough for the paths of many steps; objects never change, so none goes stale. */
const CACHED_TREES = 4096

/**
 * Git's loose objects in one git dir, read and written without a git process, which costs more
 * than everything a step's few changed files need. Git writes every object our snapshots make
 * as a loose object (nothing here runs gc or repacks), so a tree not found loose is reported as
 * unknown and the caller falls back to git.
 *
 * The file system calls are synchronous on purpose: a step writes a few dozen objects of a few
 * hundred bytes, and on a busy machine each asynchronous call's trip through libuv's thread
 * pool cost more than the call itself.
 */
export function looseObjects(gitDir: string) {
  const trees = new Map<string, TreeEntry[]>()

  const remember = (oid: string, entries: TreeEntry[]) => {
    trees.delete(oid)
    trees.set(oid, entries)
    if (trees.size > CACHED_TREES) trees.delete(trees.keys().next().value!)
  }

  const fileOf = (oid: string) => path.join(gitDir, "objects", oid.slice(0, 2), oid.slice(2))

  /** Writes `type` with `body` unless it is there; returns its id (the algorithm of `like`'s length). */
  function write(type: "blob" | "tree", body: Buffer, like: string): string {
    const object = Buffer.concat([Buffer.from(`${type} ${body.length}\0`), body])
    const oid = createHash(like.length === 64 ? "sha256" : "sha1")
      .update(object)
      .digest("hex")
    const file = fileOf(oid)
    if (existsSync(file)) return oid
    // Written whole under a temporary name, then renamed: a reader never sees half an object.
    const temporary = path.join(path.dirname(file), `tmp_obj_${randomBytes(6).toString("hex")}`)
    const data = object.length < BLOCK ? stored(object) : deflateSync(object, { level: 1 })
    try {
      writeFileSync(temporary, data, { flag: "wx", mode: 0o444 })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error
      mkdirSync(path.dirname(file), { recursive: true })
      writeFileSync(temporary, data, { flag: "wx", mode: 0o444 })
    }
    try {
      renameSync(temporary, file)
    } catch (error) {
      rmSync(temporary, { force: true })
      // Another writer made the same object first (Windows refuses to replace it).
      if (!existsSync(file)) throw error
    }
    return oid
  }

  return {
    /** The entries of the tree `oid`, or undefined when it is not a loose tree of this git dir. */
    readTree(oid: string): TreeEntry[] | undefined {
      const cached = trees.get(oid)
      if (cached) return cached
      let object: Buffer
      try {
        object = inflateSync(readFileSync(fileOf(oid)))
      } catch {
        return undefined
      }
      const headerEnd = object.indexOf(0)
      if (headerEnd < 0 || !object.subarray(0, headerEnd).toString("latin1").startsWith("tree "))
        return undefined
      const entries = parseTree(object.subarray(headerEnd + 1), oid.length / 2)
      remember(oid, entries)
      return entries
    },

    writeBlob: (body: Buffer, like: string) => write("blob", body, like),

    /** Writes a tree of `entries` (in any order) and returns its id. */
    writeTree(entries: TreeEntry[], like: string): string {
      const sorted = [...entries].sort(compareEntries)
      const body = Buffer.concat(
        sorted.flatMap((entry) => [
          Buffer.from(`${entry.mode} `),
          entry.name,
          Buffer.from([0]),
          Buffer.from(entry.oid, "hex"),
        ]),
      )
      const oid = write("tree", body, like)
      remember(oid, sorted)
      return oid
    },
  }
}

export type LooseObjects = ReturnType<typeof looseObjects>

function parseTree(body: Buffer, oidBytes: number): TreeEntry[] {
  const entries: TreeEntry[] = []
  let offset = 0
  while (offset < body.length) {
    const space = body.indexOf(0x20, offset)
    const nul = body.indexOf(0, space)
    const mode = body.toString("latin1", offset, space)
    const name = Buffer.from(body.subarray(space + 1, nul))
    const oid = body.toString("hex", nul + 1, nul + 1 + oidBytes)
    entries.push({ mode, name, oid })
    offset = nul + 1 + oidBytes
  }
  return entries
}

/** Git's order in a tree: by name bytes, a directory's name read as ending in "/". */
export function compareEntries(a: TreeEntry, b: TreeEntry): number {
  const nameA = a.mode === TREE_MODE ? Buffer.concat([a.name, SLASH]) : a.name
  const nameB = b.mode === TREE_MODE ? Buffer.concat([b.name, SLASH]) : b.name
  return Buffer.compare(nameA, nameB)
}

const SLASH = Buffer.from("/")

/** `data` as a zlib stream of stored (uncompressed) blocks, which every zlib reader inflates. */
function stored(data: Buffer): Buffer {
  const blocks = Math.max(1, Math.ceil(data.length / MAX_STORED))
  const out = Buffer.alloc(2 + blocks * 5 + data.length + 4)
  out[0] = 0x78
  out[1] = 0x01
  let offset = 2
  for (let block = 0; block < blocks; block++) {
    const chunk = data.subarray(block * MAX_STORED, (block + 1) * MAX_STORED)
    out[offset] = block === blocks - 1 ? 1 : 0
    out.writeUInt16LE(chunk.length, offset + 1)
    out.writeUInt16LE(~chunk.length & 0xffff, offset + 3)
    chunk.copy(out, offset + 5)
    offset += 5 + chunk.length
  }
  out.writeUInt32BE(adler32(data), offset)
  return out
}

const MAX_STORED = 65_535

function adler32(data: Buffer): number {
  let a = 1
  let b = 0
  // 5552 bytes is the most that can be summed before b may pass 2^32 (zlib's NMAX).
  for (let start = 0; start < data.length; start += 5552) {
    const end = Math.min(start + 5552, data.length)
    for (let index = start; index < end; index++) {
      a += data[index]!
      b += a
    }
    a %= 65_521
    b %= 65_521
  }
  return ((b << 16) | a) >>> 0
}
