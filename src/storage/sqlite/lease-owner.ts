import { randomUUID } from "node:crypto"
import { readFileSync, readlinkSync } from "node:fs"
import { hostname } from "node:os"
import { z } from "zod"

/**
 * Who holds a lease, as the `owner` column of the `lease` table keeps it: a JSON document, so
 * that a process on the same machine can tell when the holder's process is gone and take the
 * session over at once instead of waiting for the lease to expire. Older agentloops wrote a bare
 * UUID there, which proves nothing: such leases are waited for, as they always were.
 */
export const LeaseOwner = z.object({
  /** One per SqliteCoordinator: two storages of one process on one file are two owners. */
  id: z.string(),
  /** The machine and PID namespace (see `machine`): a PID means something only within it. */
  machine: z.string(),
  pid: z.number().int().positive(),
  /** When the process started, where the system says (Linux: clock ticks since boot). */
  started: z.string().optional(),
})
export type LeaseOwner = z.infer<typeof LeaseOwner>

/** This process, as the owner of a new SqliteCoordinator's leases. */
export function currentOwner(): LeaseOwner {
  const started = startTime(process.pid)
  return { id: randomUUID(), machine: machine(), pid: process.pid, ...(started ? { started } : {}) }
}

/**
 * Whether the process that wrote `owner` is provably gone: it names this machine and PID
 * namespace, and its PID is not running (or a zombie, or another process that started since).
 * Anything unproven (another machine or container, an owner an older agentloop wrote, a process
 * this one may not look at) counts as alive: its lease is waited for.
 */
export function ownerIsGone(owner: string, here: LeaseOwner): boolean {
  const parsed = parseOwner(owner)
  if (!parsed || parsed.machine !== here.machine) return false
  // This process's PID: another storage of this process, or a process before it that had the PID.
  if (parsed.pid === here.pid) return parsed.started !== undefined && parsed.started !== here.started
  try {
    process.kill(parsed.pid, 0)
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === "ESRCH"
  }
  const stat = procStat(parsed.pid)
  if (stat === undefined) return false
  // A zombie has exited (its parent has not reaped it yet); a new start time is a reused PID.
  return (
    stat.state === "Z" ||
    stat.state === "X" ||
    (parsed.started !== undefined && stat.started !== parsed.started)
  )
}

function parseOwner(owner: string): LeaseOwner | undefined {
  if (!owner.startsWith("{")) return undefined
  try {
    const parsed = LeaseOwner.safeParse(JSON.parse(owner))
    return parsed.success ? parsed.data : undefined
  } catch {
    return undefined
  }
}

/**
 * The machine, and on Linux its boot and this process's PID namespace: processes in two
 * containers of one machine see different PIDs, so one must never judge the other's by its
 * PID. Where these cannot be read, the host name alone.
 */
function machine(): string {
  const parts = [hostname()]
  try {
    parts.push(readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim())
    parts.push(readlinkSync("/proc/self/ns/pid"))
  } catch {
    // Not Linux, or no /proc: the host name.
  }
  return parts.join(" ")
}

function startTime(pid: number): string | undefined {
  return procStat(pid)?.started
}

/** The state and start time of a process from /proc/<pid>/stat (Linux), or undefined. */
function procStat(pid: number): { state: string; started: string } | undefined {
  let text: string
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8")
  } catch {
    return undefined
  }
  // The command name (field 2) is in parentheses and may hold spaces or parentheses itself.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ")
  const state = fields[0]
  // Field 22, starttime; fields[0] is field 3.
  const started = fields[19]
  return state && started ? { state, started } : undefined
}
