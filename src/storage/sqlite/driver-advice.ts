import type { SqliteDriver } from "./driver.js"

/** What loading one driver found: ready, not there, or there but unable to load. */
export type Attempt =
  | { driver: SqliteDriver; state: "ready" }
  | { driver: SqliteDriver; state: "missing" }
  | { driver: SqliteDriver; state: "broken"; error: unknown }

/** The JavaScript runtime the storage runs in, for advice that fits it. */
export type Runtime = { name: "Node" | "Bun" | "Deno" | "Workers"; version: string }

/**
 * This process's runtime: a Cloudflare Worker by its user agent (with `nodejs_compat` its
 * `process.versions` says Node), else from `process.versions` (Bun and Deno add their own entry).
 */
export function currentRuntime(): Runtime {
  const agent = (globalThis as { navigator?: { userAgent?: unknown } }).navigator?.userAgent
  if (agent === "Cloudflare-Workers") return { name: "Workers", version: "workerd" }
  const versions = process.versions as Record<string, string | undefined>
  if (versions.bun) return { name: "Bun", version: versions.bun }
  if (versions.deno) return { name: "Deno", version: versions.deno }
  return { name: "Node", version: versions.node ?? "unknown" }
}

/**
 * Why a Worker cannot open a path, whichever driver its compatibility date offers (none before
 * 2026; a `node:sqlite` whose constructor refuses after): no file system to keep a file on.
 */
export const WORKERS_MESSAGE =
  "A Cloudflare Worker has no file system for a SQLite file: in a Durable Object, use " +
  "DurableObjectSqliteStorage from agentloop-sdk/storage/durable-object (one conversation per object), " +
  "or MemoryStorage for sessions that may be lost"

/**
 * Why a path could not be opened when neither driver is usable, and what to do about it in this
 * runtime: a version of it with node:sqlite (nothing to build), or a better-sqlite3 that loads
 * here. Before version 13, better-sqlite3 is compiled for one Node version and loads under no
 * other, nor under Bun or Deno; 13 comes prebuilt for Node-API, which all of them load.
 */
export function noDriverMessage(runtime: Runtime, betterSqlite3: Attempt): string {
  const { name, version } = runtime
  const upgrade =
    name === "Node"
      ? "upgrade Node to 22.13 or later (node:sqlite: nothing to build)"
      : `upgrade ${name} (${name.toLowerCase()} upgrade; ${name === "Bun" ? "1.4.5" : "Deno 2.9.6"} has node:sqlite)`
  const passOpen = "or pass an open database instead of a path"
  if (betterSqlite3.state === "broken") {
    // 13, prebuilt, is the way out everywhere but on a Node before 22, which it crashes.
    const fix =
      name !== "Node"
        ? "Update it (npm install better-sqlite3@latest; 13 and later come prebuilt)"
        : Number.parseInt(version, 10) < 22
          ? "Install better-sqlite3@12 for this Node (13 needs Node 22)"
          : "Rebuild it for this Node (npm rebuild better-sqlite3) or update it (npm install better-sqlite3@latest; 13 and later come prebuilt)"
    return (
      `SqliteStorage found no SQLite driver: ${name} ${version} has no node:sqlite, and better-sqlite3 ` +
      `is installed but cannot load${reason(betterSqlite3)}. ${fix}, ${upgrade}, ${passOpen}.`
    )
  }
  return (
    `SqliteStorage found no SQLite driver: ${name} ${version} has no node:sqlite and better-sqlite3 is ` +
    `not installed. Install better-sqlite3 (npm install better-sqlite3), ${upgrade}, ${passOpen}.`
  )
}

/**
 * The warning given when the driver asked for is not usable and the other one opened the path
 * instead (or node:sqlite, tried first, could not load).
 */
export function fallbackMessage(runtime: Runtime, first: Attempt, used: SqliteDriver, path: string): string {
  const opened = `opened ${JSON.stringify(path)} with ${used} instead`
  if (first.driver === "node:sqlite")
    return `SqliteStorage: ${runtime.name} ${runtime.version} has no node:sqlite${reason(first)} (Node has it from 22.13); ${opened}.`
  if (first.state === "missing")
    return `SqliteStorage: better-sqlite3 was asked for but is not installed; ${opened}.`
  const rebuild = runtime.name === "Node" ? "rebuild it for this Node (npm rebuild better-sqlite3) or " : ""
  return (
    `SqliteStorage: better-sqlite3 cannot load in ${runtime.name} ${runtime.version}${reason(first)}; ${opened}. ` +
    `To use better-sqlite3, ${rebuild}update it (npm install better-sqlite3@latest; 13 and later come ` +
    "prebuilt); to use node:sqlite without this warning, leave the driver option out."
  )
}

function reason(attempt: Attempt): string {
  if (attempt.state !== "broken") return ""
  const message = attempt.error instanceof Error ? attempt.error.message : String(attempt.error)
  return ` (${message.replace(/\s+/g, " ").trim()})`
}
