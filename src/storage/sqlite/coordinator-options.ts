import { z } from "zod"
import { parseInput } from "../../error/invalid-input.js"

/** setTimeout fires at once for longer delays (they overflow a 32-bit signed int). */
const MAX_TIMER_MS = 2_147_483_647
const DEFAULT_LEASE_MS = 10_000
const DEFAULT_POLL_MS = 100

/**
 * How SqliteCoordinator keeps its leases and hears the other processes. The defaults suit
 * processes on one machine; tests shorten `leaseMs` so that a killed owner is replaced quickly.
 */
export const SqliteCoordinatorOptions = z
  .strictObject({
    /**
     * How long a lease lasts without renewal: the longest a session stays blocked after its
     * owner died. Default 10,000 ms.
     */
    leaseMs: z.number().int().min(100).max(MAX_TIMER_MS).optional(),
    /** How often held leases are renewed; at most half of `leaseMs`. Default: 30 % of `leaseMs`. */
    renewMs: z.number().int().positive().max(MAX_TIMER_MS).optional(),
    /**
     * How often the other processes' messages are read, and the longest pause between two looks
     * at a lease a claim waits for. Default 100 ms.
     */
    pollMs: z.number().int().positive().max(60_000).optional(),
  })
  .refine(
    (options) =>
      options.renewMs === undefined || options.renewMs * 2 <= (options.leaseMs ?? DEFAULT_LEASE_MS),
    {
      message: "renewMs must be at most half of leaseMs",
      path: ["renewMs"],
    },
  )
export type SqliteCoordinatorOptions = z.input<typeof SqliteCoordinatorOptions>

export type CoordinatorPolicy = { leaseMs: number; renewMs: number; pollMs: number }

/**
 * SqliteStorage's `coordinator` option: `false`, or the policy of its coordinator. By default a
 * database that only this connection can see (":memory:") gets none: no other process can
 * open it.
 */
export function coordinatorPolicy(given: unknown, path: string | undefined): CoordinatorPolicy | undefined {
  const option = parseInput(
    "SqliteStorage options",
    z.object({ coordinator: z.union([z.boolean(), SqliteCoordinatorOptions]).optional() }),
    { coordinator: given },
  ).coordinator
  if (option === false || (option === undefined && (path === ":memory:" || path === ""))) return undefined
  const options = option === true || option === undefined ? {} : option
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS
  return {
    leaseMs,
    renewMs: options.renewMs ?? Math.round(leaseMs * 0.3),
    pollMs: options.pollMs ?? DEFAULT_POLL_MS,
  }
}
