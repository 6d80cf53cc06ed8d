// vitest globalSetup: the PostgreSQL the storage tests run against. AGENTLOOP_PG_URL when set;
// else a throwaway cluster when the PostgreSQL binaries are installed; else the PostgreSQL
// suites are skipped, and say so loudly (with CI set, the run fails instead).
import { findPostgres, startCluster } from "./pg-cluster.js"

export default async function setup(): Promise<() => void> {
  if (process.env.AGENTLOOP_PG_URL) return () => {}
  const bin = findPostgres()
  if (!bin) {
    // In CI nothing is skipped: a machine without PostgreSQL fails the run instead.
    if (process.env.CI)
      throw new Error("CI is set, but no AGENTLOOP_PG_URL and no initdb: the PostgreSQL suites cannot run")
    console.warn(
      "\n*** SKIPPED: the PostgreSQL suites (test/storage/postgres*.test.ts): no AGENTLOOP_PG_URL and no " +
        "initdb found (install Debian's postgresql package, or run `npm run db:start`). ***\n",
    )
    return () => {}
  }
  const cluster = await startCluster(bin)
  process.env.AGENTLOOP_PG_URL = cluster.url
  return () => cluster.stop()
}
