import { existsSync } from "node:fs"
import { type SqliteDriver, SqliteStorage } from "../../src/storage/sqlite/index.js"
import type { Acks } from "./acks.js"
import { checkStorage, type Finding } from "./check-storage.js"
import { describeError, integrityProblem } from "./integrity.js"
import type { RunPlan } from "./plan.js"

/**
 * Checks a to e on the SQLite file a child left: SQLite's integrity, then the checks of
 * check-storage.ts on it, both through `driver` (the trials pass the driver the child did not
 * write with, where there is one: a file written through one driver must read through the other).
 */
export async function checkFile(
  file: string,
  acks: Acks,
  plan: RunPlan,
  driver: SqliteDriver,
): Promise<Finding[]> {
  // Killed before SQLite created the file: nothing was stored and nothing was promised.
  if (!existsSync(file)) return acks.sessionID ? [{ check: "lost", detail: "the database file is gone" }] : []
  let storage: SqliteStorage
  try {
    const problem = integrityProblem(file, driver)
    if (problem) return [{ check: "integrity", detail: problem }]
    // The child is dead: alone with the file, the checks need not wait for its leases to expire.
    storage = new SqliteStorage(file, { coordinator: false, driver })
    if (storage.driver !== driver) {
      await storage.close()
      return [{ check: "harness", detail: `the checks asked for ${driver}, and got ${storage.driver}` }]
    }
  } catch (error) {
    return [{ check: "integrity", detail: `opening the file: ${describeError(error)}` }]
  }
  return checkStorage(storage, acks, plan)
}
