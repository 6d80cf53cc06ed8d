/**
 * What the sandbox costs: a bash call and the file tools' operations through `sandboxOperations`
 * against `localOperations`, measured in the same run on the same directory. A bash call is what
 * the bash tool does (`exec` with a timeout, an abort signal and an output callback); the file
 * operations act on one small file. `npx tsx bench/index.ts sandbox`.
 */
import { chown, mkdtemp, rm, writeFile } from "node:fs/promises"
import os from "node:os"
import path from "node:path"
import { performance } from "node:perf_hooks"
import { localOperations, type Operations, sandboxOperations } from "../src/tools/index.js"
import { median, printTable } from "./report.js"

const EXEC_ROUNDS = 60
const FILE_ROUNDS = 500
const WARMUP = 5

type Case = {
  name: string
  rounds: number
  run: (operations: Operations, directory: string) => Promise<unknown>
}

const exec = (command: string) => (operations: Operations, directory: string) =>
  operations.exec(command, {
    cwd: directory,
    signal: new AbortController().signal,
    timeoutMs: 120_000,
    onData() {},
  })

const CASES: Case[] = [
  { name: "bash: true", rounds: EXEC_ROUNDS, run: exec("true") },
  { name: "bash: echo hi > f", rounds: EXEC_ROUNDS, run: exec("echo hi > f") },
  { name: "readFile", rounds: FILE_ROUNDS, run: (ops, dir) => ops.readFile(path.join(dir, "small.txt")) },
  {
    name: "writeFile",
    rounds: FILE_ROUNDS,
    run: (ops, dir) => ops.writeFile(path.join(dir, "written.txt"), "hello\n"),
  },
  { name: "stat", rounds: FILE_ROUNDS, run: (ops, dir) => ops.stat(path.join(dir, "small.txt")) },
  { name: "realpath", rounds: FILE_ROUNDS, run: (ops, dir) => ops.realpath(path.join(dir, "small.txt")) },
  { name: "list", rounds: FILE_ROUNDS, run: (ops, dir) => ops.list(dir) },
  { name: "glob *.txt", rounds: FILE_ROUNDS, run: (ops, dir) => ops.glob("*.txt", { cwd: dir }) },
]

/** Median ms of one call, the two ports taking turns each round so that drift hits both alike. */
async function measure(item: Case, ports: Operations[], directory: string): Promise<number[]> {
  const times = ports.map((): number[] => [])
  for (let round = 0; round < item.rounds + WARMUP; round++)
    for (const [index, operations] of ports.entries()) {
      const start = performance.now()
      await item.run(operations, directory)
      if (round >= WARMUP) times[index]!.push(performance.now() - start)
    }
  return times.map(median)
}

export async function runSandboxBench(): Promise<void> {
  const directory = await mkdtemp(path.join(os.tmpdir(), "agentloop-bench-sandbox-"))
  // Run as root, the sandbox runs commands as the directory's owner, which must not be root.
  if (process.getuid?.() === 0) await chown(directory, 65534, 65534)
  try {
    await writeFile(path.join(directory, "small.txt"), "a small file\n".repeat(20))
    const sandbox = sandboxOperations({ directory })
    const { engine, version } = sandbox.sandbox
    console.log(
      `Sandbox: ${engine} ${version}, network off; median ms of one call (bash: ${EXEC_ROUNDS} calls, ` +
        `file operations: ${FILE_ROUNDS} calls on a 260-byte file), localOperations and the sandbox in turn\n`,
    )
    const rows: string[][] = []
    for (const item of CASES) {
      const [local, sandboxed] = await measure(item, [localOperations, sandbox], directory)
      rows.push([
        item.name,
        local!.toFixed(3),
        sandboxed!.toFixed(3),
        signed(sandboxed! - local!),
        `${(sandboxed! / local!).toFixed(2)}x`,
      ])
    }
    printTable(["operation", "local ms", "sandbox ms", "difference ms", "ratio"], rows)
    console.log()
  } finally {
    await rm(directory, { recursive: true, force: true })
  }
}

function signed(ms: number): string {
  return `${ms >= 0 ? "+" : ""}${ms.toFixed(3)}`
}
