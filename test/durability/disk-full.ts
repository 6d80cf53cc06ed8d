import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fillDisk } from "../storage/fault-helpers.js"
import { checkFile } from "./check-file.js"
import { metFault, pause } from "./child-watch.js"
import type { RunPlan } from "./plan.js"
import type { Stage, TrialDrivers } from "./stage.js"

/** Room for a whole run and its checks (a few hundred KB, the WAL included) many times over. */
const TMPFS_SIZE = "16m"
/** The child writes every few ms: a full disk not met by then means it stopped writing. */
const MEET_MS = 10_000

/**
 * The "full" fault: the child's SQLite file on a tmpfs of its own, which this process fills at
 * `atMs` (a real ENOSPC); once the child reports a turn failed by it, the space is freed
 * `holdMs` later and the child goes on with loop().
 */
export function diskFullStage(directory: string, plan: RunPlan, atMs: number, drivers: TrialDrivers): Stage {
  const fault = plan.fault
  const holdMs = fault.kind === "full" ? fault.holdMs : 0
  const mountPoint = join(directory, "tmpfs")
  mkdirSync(mountPoint)
  mountTmpfs(mountPoint)
  const file = join(mountPoint, "agentloop.db")
  const filler = join(mountPoint, "filler")
  let outcome = "disk full after the child finished"
  return {
    args: [file, drivers.child],
    kills: false,
    async apply(watch) {
      await pause(atMs)
      if (watch.exited) return
      fillDisk(filler)
      const met = await watch.until(metFault, MEET_MS)
      outcome = met
        ? "disk full, met by a turn: the child went on with loop() once freed"
        : watch.exited
          ? "disk full, not met: the child finished first"
          : `disk full, not met in ${MEET_MS} ms`
      if (met) await pause(holdMs)
      rmSync(filler, { force: true })
    },
    landed: () => outcome,
    check: (acks, checked) => checkFile(file, acks, checked, drivers.parent),
    dispose: async () => {
      spawnSync("umount", ["-l", mountPoint])
    },
  }
}

/** Why the "full" fault cannot run here (it mounts a tmpfs: Linux, as root), or undefined. */
export function diskFullUnsupported(): string | undefined {
  if (process.platform !== "linux") return "mounting a tmpfs needs Linux"
  if (process.getuid?.() !== 0) return "mounting a tmpfs needs root"
  const probe = mkdtempSync(join(tmpdir(), "agentloop-durability-probe-"))
  try {
    mountTmpfs(probe)
    spawnSync("umount", ["-l", probe])
    return undefined
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  } finally {
    rmdirSync(probe)
  }
}

function mountTmpfs(mountPoint: string): void {
  const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${TMPFS_SIZE}`, "tmpfs", mountPoint], {
    encoding: "utf8",
  })
  if (mounted.status !== 0)
    throw new Error(`mount -t tmpfs failed: ${mounted.stderr.trim() || mounted.error?.message}`)
}
