import type { Snapshot } from "../../src/index.js"

/**
 * A Snapshot over an in-memory file tree: the same contract as GitSnapshot, without git, so
 * that session-level tests of revert and diff run fast. `delay` makes track answer only after
 * that many turns of the event loop, as a real tracker takes time.
 */
export function fakeSnapshot(options: { delay?: number } = {}) {
  const files = new Map<string, string>()
  const states = new Map<string, Map<string, string>>()
  const calls: string[] = []
  const state = (hash: string) => {
    const tree = states.get(hash)
    if (!tree) throw new Error(`unknown state ${hash}`)
    return tree
  }
  const changed = (from: Map<string, string>, to: Map<string, string>) =>
    [...new Set([...from.keys(), ...to.keys()])].filter((file) => from.get(file) !== to.get(file)).sort()
  const record = () => {
    const hash = `tree-${states.size}`
    states.set(hash, new Map(files))
    return hash
  }
  const snapshot: Snapshot = {
    async track() {
      calls.push("track")
      for (let turn = 0; turn < (options.delay ?? 0); turn++)
        await new Promise((resolve) => setImmediate(resolve))
      return record()
    },
    async patch(hash) {
      calls.push("patch")
      return { hash, files: changed(state(hash), files) }
    },
    async diff(from, to) {
      calls.push("diff")
      const before = state(from)
      const after = to === undefined ? files : state(to)
      return changed(before, after).map((file) => {
        const a = before.get(file) ?? ""
        const b = after.get(file) ?? ""
        const lines = (text: string) => (text === "" ? [] : text.split("\n"))
        return { file, before: a, after: b, additions: lines(b).length, deletions: lines(a).length }
      })
    },
    async restore(hash) {
      calls.push("restore")
      for (const [file, text] of state(hash)) files.set(file, text)
    },
    async revert(patches) {
      calls.push("revert")
      const done = new Set<string>()
      for (const patch of patches)
        for (const file of patch.files) {
          if (done.has(file)) continue
          done.add(file)
          const text = state(patch.hash).get(file)
          if (text === undefined) files.delete(file)
          else files.set(file, text)
        }
    },
  }
  return { snapshot, files, calls }
}
