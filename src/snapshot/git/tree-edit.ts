import { isExcluded } from "./exclusions.js"
import { type LooseObjects, TREE_MODE, type TreeEntry } from "./loose-objects.js"

/*
 * Trees edited and compared in process, over loose objects: what a step's few changed files
 * need, without a git process.
 */

/** A path's entry in a tree: its mode and object; undefined when the tree has no such path. */
export type Entry = { mode: string; oid: string } | undefined

/**
 * The files that differ between the trees `from` and `to`, as `git diff-index --name-only`
 * lists them (sorted by path, excluded paths left out); undefined when a tree is not loose.
 */
export function changedBetween(
  objects: LooseObjects,
  from: string,
  to: string,
  exclusions: readonly string[],
): string[] | undefined {
  const found: Buffer[] = []
  const walk = (a: string | undefined, b: string | undefined, prefix: Buffer): boolean => {
    if (a === b) return true
    const before = a ? objects.readTree(a) : []
    const after = b ? objects.readTree(b) : []
    if (!before || !after) return false
    const entries = new Map<string, [TreeEntry | undefined, TreeEntry | undefined]>()
    for (const entry of before) entries.set(entry.name.toString("latin1"), [entry, undefined])
    for (const entry of after)
      entries.set(entry.name.toString("latin1"), [entries.get(entry.name.toString("latin1"))?.[0], entry])
    for (const [old, current] of entries.values()) {
      if (old && current && old.oid === current.oid && old.mode === current.mode) continue
      const name = Buffer.concat([prefix, (old ?? current)!.name])
      const oldTree = old?.mode === TREE_MODE ? old.oid : undefined
      const newTree = current?.mode === TREE_MODE ? current.oid : undefined
      if ((old && !oldTree) || (current && !newTree)) found.push(name)
      if ((oldTree || newTree) && !walk(oldTree, newTree, Buffer.concat([name, SLASH]))) return false
    }
    return true
  }
  if (!walk(from, to, Buffer.alloc(0))) return undefined
  return found
    .sort(Buffer.compare)
    .map((name) => name.toString("utf8"))
    .filter((file) => !isExcluded(file, exclusions))
}

/**
 * The entry at `file` in the tree `root`: undefined when there is none, null when a file (or a
 * submodule) stands where the path needs a directory or a tree cannot be read here.
 */
export function lookup(objects: LooseObjects, root: string, file: string): Entry | null {
  let tree = root
  const segments = file.split("/")
  for (const [index, segment] of segments.entries()) {
    const entries = objects.readTree(tree)
    if (!entries) return null
    const name = Buffer.from(segment)
    const entry = entries.find((candidate) => candidate.name.equals(name))
    if (!entry) return undefined
    if (index === segments.length - 1) return { mode: entry.mode, oid: entry.oid }
    if (entry.mode !== TREE_MODE) return null
    tree = entry.oid
  }
  return undefined
}

/**
 * The tree `oid` with `changes` made (paths split into segments; undefined removes): the new
 * tree's id, undefined when nothing is left in it, null when a tree cannot be read here.
 */
export function rewrite(
  objects: LooseObjects,
  oid: string | undefined,
  changes: [string[], Entry][],
  like: string,
): string | undefined | null {
  const entries = oid ? objects.readTree(oid) : []
  if (!entries) return null
  const byName = new Map(entries.map((entry) => [entry.name.toString("latin1"), entry]))
  const deeper = new Map<string, [string[], Entry][]>()
  let changed = false
  for (const [segments, entry] of changes) {
    const key = Buffer.from(segments[0]!).toString("latin1")
    if (segments.length > 1) {
      deeper.set(key, [...(deeper.get(key) ?? []), [segments.slice(1), entry]])
      continue
    }
    const current = byName.get(key)
    if (
      entry === undefined ? current === undefined : current?.oid === entry.oid && current.mode === entry.mode
    )
      continue
    changed = true
    if (entry === undefined) byName.delete(key)
    else byName.set(key, { ...entry, name: Buffer.from(segments[0]!) })
  }
  for (const [key, inner] of deeper) {
    const tree = rewrite(objects, byName.get(key)?.oid, inner, like)
    if (tree === null) return null
    if (tree === byName.get(key)?.oid) continue
    changed = true
    if (tree === undefined) byName.delete(key)
    else byName.set(key, { mode: TREE_MODE, name: Buffer.from(key, "latin1"), oid: tree })
  }
  if (!changed) return oid
  if (byName.size === 0) return undefined
  return objects.writeTree([...byName.values()], like)
}

const SLASH = Buffer.from("/")
