import { existsSync } from "node:fs"
import Database from "better-sqlite3"

/**
 * The busy fault of a trial: this process (the parent, another process than the child) takes the
 * child's SQLite write lock `atMs` after the start and holds it `holdMs`, as a second program on
 * the same file would. Resolves once the lock was let go, or when the file never appeared.
 */
export async function holdWriteLock(file: string, atMs: number, holdMs: number, deadlineMs: number) {
  const started = performance.now()
  await pause(atMs)
  // The child may not have created the file yet, or may hold the lock itself for a moment.
  while (performance.now() - started < deadlineMs) {
    if (existsSync(file)) {
      const db = new Database(file, { timeout: 0 })
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
