import { existsSync } from "node:fs"
import type { SqliteDriver } from "../../src/storage/sqlite/index.js"
import { openRaw } from "../fixtures/sqlite-raw.js"

/**
 * The busy fault of a trial: this process (the parent, another process than the child) takes the
 * child's SQLite write lock through `driver` `atMs` after the start and holds it `holdMs`, as a
 * second program on the same file would. Resolves once the lock was let go, or when the file
 * never appeared.
 */
export async function holdWriteLock(
  file: string,
  driver: SqliteDriver,
  timing: { atMs: number; holdMs: number; deadlineMs: number },
) {
  const { atMs, holdMs, deadlineMs } = timing
  const started = performance.now()
  await pause(atMs)
  // The child may not have created the file yet, or may hold the lock itself for a moment.
  while (performance.now() - started < deadlineMs) {
    if (existsSync(file)) {
      const db = openRaw(file, driver, 0)
      try {
        db.exec("BEGIN IMMEDIATE")
      } catch {
        db.close()
        await pause(2)
        continue
      }
      await pause(holdMs)
      db.exec("COMMIT")
      db.close()
      return
    }
    await pause(10)
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
