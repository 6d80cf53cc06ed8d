/**
 * GitSnapshot at the cost it has in a session, over a 10,000-file tree with a few files changed
 * per step: a scan (a turn's first step, a step after a command), and a step's end as the
 * processor asks for it, scanning or from the files the step's tools declared (issue 32).
 * Against a plain `git add --all && git write-tree` on a normal index (with `diff-tree` for the
 * old track + patch row), the least any git-based snapshot can do. `npm run bench -- snapshot`.
 */
import { execFile } from "node:child_process"
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import os from "node:os"
import path from "node:path"
import { performance } from "node:perf_hooks"
import { promisify } from "node:util"
import { GitSnapshot } from "../src/snapshot/git/index.js"
import { median, printTable } from "./report.js"

const DIRECTORIES = 250
const FILES_PER_DIRECTORY = 40
const CHANGED_PER_STEP = 5
const ROUNDS = 20

const run = promisify(execFile)

async function buildTree(root: string): Promise<string[]> {
  const files: string[] = []
  for (let directory = 0; directory < DIRECTORIES; directory++) {
    const folder = path.join(root, `src/module-${Math.floor(directory / 25)}/part-${directory}`)
    await mkdir(folder, { recursive: true })
    const writes: Promise<void>[] = []
    for (let file = 0; file < FILES_PER_DIRECTORY; file++) {
      const name = path.join(folder, `file-${file}.ts`)
      files.push(name)
      writes.push(writeFile(name, `export const value${file} = ${directory * file}\n// ${"x".repeat(200)}\n`))
    }
    await Promise.all(writes)
  }
  await writeFile(path.join(root, ".gitignore"), "node_modules/\n*.log\n")
  return files
}

/** Rewrites a few files, different ones each round, as a model step would; returns their paths. */
async function changeSome(files: readonly string[], round: number): Promise<string[]> {
  const changed = Array.from(
    { length: CHANGED_PER_STEP },
    (_, index) => files[(round * 7919 + index * 104_729) % files.length]!,
  )
  await Promise.all(
    changed.map((file, index) => writeFile(file, `// round ${round}\nexport const changed = ${index}\n`)),
  )
  return changed
}

/** Creates a few new files in new directories, as a step of `write` calls would; returns their paths. */
async function createSome(root: string, round: number): Promise<string[]> {
  const created = Array.from({ length: CHANGED_PER_STEP }, (_, index) =>
    path.join(root, `src/new-${round}/file-${index}.ts`),
  )
  await mkdir(path.join(root, `src/new-${round}`), { recursive: true })
  await Promise.all(created.map((file) => writeFile(file, `export const round = ${round}\n`)))
  return created
}

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now()
  const result = await work()
  return [result, performance.now() - start]
}

/** The baseline: what `git status`-like tooling pays on a normal index, no snapshot logic. */
function baseline(workTree: string, gitDir: string) {
  const git = async (...args: string[]) =>
    (
      await run("git", ["--git-dir", gitDir, "--work-tree", workTree, ...args], { cwd: workTree })
    ).stdout.trim()
  return {
    init: () => run("git", ["init", "--quiet", "--bare", gitDir]),
    track: async () => {
      await git("add", "--all")
      return git("write-tree")
    },
    changed: (from: string, to: string) => git("diff-tree", "-r", "--name-only", "-z", from, to),
  }
}

type Row = { ours: number[]; base: number[] }

export async function runSnapshotBench() {
  const root = await mkdtemp(path.join(os.tmpdir(), "agentloop-bench-snapshot-"))
  const workTree = path.join(root, "tree")
  const snapshot = new GitSnapshot({ directory: workTree, dataDir: path.join(root, "data") })
  try {
    const files = await buildTree(workTree)
    const plain = baseline(workTree, path.join(root, "baseline.git"))
    await plain.init()

    const [, coldMs] = await timed(() => snapshot.track())
    const [, baselineColdMs] = await timed(() => plain.track())
    const row = (): Row => ({ ours: [], base: [] })
    const rows = { track: row(), step: row(), scanned: row(), known: row(), created: row() }
    const check = (patch: { files: string[] }) => {
      if (patch.files.length !== CHANGED_PER_STEP) throw new Error(`patch found ${patch.files.length} files`)
    }
    for (let round = 0; round < ROUNDS; round++) {
      // Before issue 32: a full track at the step's start, a full track and patch at its end.
      await changeSome(files, 4 * round)
      const [hash, trackMs] = await timed(() => snapshot.track())
      const [baseHash, baseTrackMs] = await timed(() => plain.track())
      await changeSome(files, 4 * round + 1)
      const [patch, stepMs] = await timed(async () => {
        await snapshot.track()
        return snapshot.patch(hash!)
      })
      const [, baseStepMs] = await timed(async () => plain.changed(baseHash, await plain.track()))
      check(patch)
      rows.track.ours.push(trackMs)
      rows.track.base.push(baseTrackMs)
      rows.step.ours.push(stepMs)
      rows.step.base.push(baseStepMs)

      // Since: a step's end as the processor runs it, after a command (full scan) ...
      const start = (await snapshot.track())!
      await plain.track()
      await changeSome(files, 4 * round + 2)
      const [scanned, scannedMs] = await timed(async () => {
        const after = (await snapshot.track())!
        return { after, patch: await snapshot.patch(start, { from: after, changed: [] }) }
      })
      const [, baseScannedMs] = await timed(() => plain.track())
      check(scanned.patch)
      rows.scanned.ours.push(scannedMs)
      rows.scanned.base.push(baseScannedMs)

      // ... and after only `write` and `edit` calls, which declare the files they change.
      const edited = await changeSome(files, 4 * round + 3)
      const [knownPatch, knownMs] = await timed(async () => {
        const after = (await snapshot.track({ from: scanned.after, changed: edited }))!
        return snapshot.patch(scanned.after, { from: after, changed: [] })
      })
      const [, baseKnownMs] = await timed(() => plain.track())
      check(knownPatch)
      rows.known.ours.push(knownMs)
      rows.known.base.push(baseKnownMs)

      const from = (await snapshot.track())!
      await plain.track()
      const created = await createSome(workTree, round)
      const [createdPatch, createdMs] = await timed(async () => {
        const after = (await snapshot.track({ from, changed: created }))!
        return snapshot.patch(from, { from: after, changed: [] })
      })
      const [, baseCreatedMs] = await timed(() => plain.track())
      check(createdPatch)
      rows.created.ours.push(createdMs)
      rows.created.base.push(baseCreatedMs)
      // Not timed: the scan after new files records them in the index, which the next round's
      // first track would otherwise pay for.
      await snapshot.track()
    }
    const format = (ms: number) => ms.toFixed(1)
    const line = (name: string, { ours, base }: Row) => [
      name,
      format(median(ours)),
      format(median(base)),
      median(ours.map((value, index) => value / base[index]!)).toFixed(2),
    ]
    console.log(
      `GitSnapshot, ${files.length} files, ${CHANGED_PER_STEP} changed per step, ${ROUNDS} rounds\n`,
    )
    printTable(
      ["operation", "GitSnapshot (ms)", "plain git (ms)", "ratio"],
      [
        ["first track (cold)", format(coldMs), format(baselineColdMs), (coldMs / baselineColdMs).toFixed(2)],
        line("track (median)", rows.track),
        line("track + patch, both scanning (median)", rows.step),
        line("step end, full scan (median)", rows.scanned),
        line("step end, 5 edited files known (median)", rows.known),
        line("step end, 5 new files known (median)", rows.created),
      ],
    )
    console.log(
      "\nplain git: add --all + write-tree; for track + patch, add --all + write-tree + diff-tree. " +
        "Step end: track and patch as the processor calls them (patch from the state track returned).",
    )
  } finally {
    await snapshot.close()
    await rm(root, { recursive: true, force: true })
  }
}
