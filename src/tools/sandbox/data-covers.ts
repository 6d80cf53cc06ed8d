import * as fs from "node:fs/promises"
import * as path from "node:path"
import type { DataPath } from "../../tool/data-path.js"
import { resolveLinks } from "../local-operations.js"
import type { Mount } from "./bwrap-args.js"
import { within } from "./roots.js"

/** One protected path where a command would see it (`at`), covered there as a file or a folder. */
type Cover = { at: string; kind: "file" | "directory"; mount: Mount }

/**
 * bwrap's arguments that hide the runtime's data paths (ExecOptions.protectedPaths) wherever a
 * mount shows them: a folder under an empty read-only tmpfs, a file under /dev/null read-only
 * (which bwrap's nodev /dev makes unopenable). A mount point cannot be removed or renamed, and
 * each folder between a writable mount and a covered path is made a mount of itself first, so
 * that moving a parent away (and making the path anew) fails too. A missing path is made first,
 * empty, by the host (its topmost missing folder when its folder is missing too), so that the
 * command cannot make it: only in a writable mount, where the command could have made it anyway.
 * A path that is a mount itself, or holds one, is left alone: hiding it would hide the mount.
 */
export async function dataCovers(mounts: readonly Mount[], paths: readonly DataPath[]): Promise<string[]> {
  const covers: Cover[] = []
  for (const data of paths) {
    const real = await resolveLinks(path.resolve(data.path), 0)
    if (mounts.some((mount) => within(mount.source, [real]))) continue
    for (const mount of mounts) {
      if (!within(real, [mount.source])) continue
      const made = await madeOrExisting(real, data.kind, mount.writable)
      if (!made) continue
      const at = path.join(mount.path, path.relative(mount.source, made.path))
      covers.push({ at, kind: made.kind, mount })
    }
  }
  // Outer first; one inside a covered folder is hidden already (and its mount point cannot be made).
  covers.sort((a, b) => depth(a.at) - depth(b.at))
  const kept = covers.filter(
    (cover, index) =>
      !covers.slice(0, index).some((outer) => outer.kind === "directory" && within(cover.at, [outer.at])),
  )
  // Every pin before any cover: a pin mounted later would show its folder without the covers in it.
  const pins = new Map(kept.filter((cover) => cover.mount.writable).flatMap(foldersBetween))
  return [
    ...[...pins].sort(([a], [b]) => depth(a) - depth(b)).flatMap(([at, source]) => ["--bind", source, at]),
    ...kept.flatMap((cover) =>
      cover.kind === "directory"
        ? ["--tmpfs", cover.at, "--remount-ro", cover.at]
        : ["--ro-bind", "/dev/null", cover.at],
    ),
  ]
}

/**
 * What to cover for `real` (a host path in a mount): itself when it exists; else, in a writable
 * mount, the empty placeholder made for it. Undefined when there is nothing a command could
 * reach or make, or the placeholder cannot be made (the host cannot write there).
 */
async function madeOrExisting(real: string, kind: DataPath["kind"], writable: boolean) {
  const existing = await fs.lstat(real).catch(() => undefined)
  if (existing)
    return { path: real, kind: existing.isDirectory() ? ("directory" as const) : ("file" as const) }
  if (!writable) return undefined
  let top = real
  while ((await fs.lstat(path.dirname(top)).catch(() => undefined)) === undefined) top = path.dirname(top)
  const placeholder = top === real ? kind : "directory"
  try {
    if (placeholder === "directory") await fs.mkdir(top)
    else await (await fs.open(top, "wx", 0o600)).close()
  } catch (error) {
    // Made meanwhile (by the port, or another command's placeholder): cover what is there.
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return madeOrExisting(real, kind, writable)
    return undefined
  }
  return { path: top, kind: placeholder }
}

/** The folders strictly between the cover's mount and the cover: where each is seen, and its host path. */
function foldersBetween(cover: Cover): [at: string, source: string][] {
  const { mount } = cover
  const folders: [string, string][] = []
  for (let at = path.dirname(cover.at); at !== mount.path && within(at, [mount.path]); at = path.dirname(at))
    folders.push([at, path.join(mount.source, path.relative(mount.path, at))])
  return folders
}

function depth(file: string): number {
  return file.split("/").filter(Boolean).length
}
