import { findPostgres, startCluster } from "../test/setup/pg-cluster.js"

/**
 * A PostgreSQL URL for a bench: AGENTLOOP_PG_URL when set, else a throwaway local cluster
 * (stopped by the returned function); undefined, with a note, when there is neither.
 */
export async function benchPostgres(): Promise<{ url: string; stop(): void } | undefined> {
  if (process.env.AGENTLOOP_PG_URL) return { url: process.env.AGENTLOOP_PG_URL, stop: () => {} }
  const bin = findPostgres()
  if (!bin) {
    console.log("PostgreSQL: skipped (no AGENTLOOP_PG_URL and no initdb found)\n")
    return undefined
  }
  return startCluster(bin)
}
