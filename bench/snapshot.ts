/**
 * GitSnapshot at the cost it has in a session: `track` at each step's start, `track` and
 * `patch` at its end, over a 10,000-file tree with a few files changed per step. Against a
 * plain `git add --all && git write-tree` on a normal index (then `diff-tree` against the
 * step's first tree), the least any git-based snapshot can do. `npm run bench -- snapshot`.
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

/** Rewrites a few files, different ones each round, as a model step would. */
async function changeSome(files: readonly string[], round: number): Promise<void> {
  const changes = Array.from({ length: CHANGED_PER_STEP }, (_, index) => {
    const file = files[(round * 7919 + index * 104_729) % files.length]!
    return writeFile(file, `// round ${round}\nexport const changed = ${index}\n`)
  })
  await Promise.all(changes)
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

export async function runSnapshotBench() {
  const root = await mkdtemp(path.join(os.tmpdir(), "agentloop-bench-snapshot-"))
  try {
    const workTree = path.join(root, "tree")
    const files = await buildTree(workTree)
    const snapshot = new GitSnapshot({ directory: workTree, dataDir: path.join(root, "data") })
    const plain = baseline(workTree, path.join(root, "baseline.git"))
    await plain.init()

    const [, coldMs] = await timed(() => snapshot.track())
    const [, baselineColdMs] = await timed(() => plain.track())
    const rows = {
      track: [] as number[],
      step: [] as number[],
      baseTrack: [] as number[],
      baseStep: [] as number[],
    }
    for (let round = 0; round < ROUNDS; round++) {
      await changeSome(files, 2 * round)
      const [hash, trackMs] = await timed(() => snapshot.track())
      const [baseHash, baseTrackMs] = await timed(() => plain.track())
      await changeSome(files, 2 * round + 1)
      const [patch, stepMs] = await timed(async () => {
        await snapshot.track()
        return snapshot.patch(hash!)
      })
      const [, baseStepMs] = await timed(async () => plain.changed(baseHash, await plain.track()))
      if (patch.files.length !== CHANGED_PER_STEP) throw new Error(`patch found ${patch.files.length} files`)
      rows.track.push(trackMs)
      rows.step.push(stepMs)
      rows.baseTrack.push(baseTrackMs)
      rows.baseStep.push(baseStepMs)
    }
    const ratio = (ours: number[], base: number[]) => median(ours.map((value, index) => value / base[index]!))
    const format = (ms: number) => ms.toFixed(1)
    console.log(
      `GitSnapshot, ${files.length} files, ${CHANGED_PER_STEP} changed per step, ${ROUNDS} rounds\n`,
    )
    printTable(
      ["operation", "GitSnapshot (ms)", "plain git (ms)", "ratio"],
      [
        ["first track (cold)", format(coldMs), format(baselineColdMs), (coldMs / baselineColdMs).toFixed(2)],
        [
          "track (median)",
          format(median(rows.track)),
          format(median(rows.baseTrack)),
          ratio(rows.track, rows.baseTrack).toFixed(2),
        ],
        [
          "track + patch (median)",
          format(median(rows.step)),
          format(median(rows.baseStep)),
          ratio(rows.step, rows.baseStep).toFixed(2),
        ],
      ],
    )
  } finally {
    await rm(root, { recursive: true, force: true })
  }
}
