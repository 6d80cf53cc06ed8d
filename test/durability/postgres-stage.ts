import { randomBytes } from "node:crypto"
import pg from "pg"
import { PostgresStorage } from "../../src/storage/postgres/index.js"
import { findPostgres } from "../setup/pg-cluster.js"
import type { OwnCluster } from "../storage/pg-faults-helpers.js"
import { checkStorage } from "./check-storage.js"
import { pause } from "./child-watch.js"
import type { RunPlan } from "./plan.js"
import type { Stage } from "./stage.js"

/**
 * Where PostgreSQL trials run: a cluster of the trial's worker (started on first use), which a
 * "pg-restart" trial may restart without disturbing the other workers' trials. A "pg-terminate"
 * trial uses AGENTLOOP_PG_URL instead when it is set (the tests' shared cluster).
 */
export type PostgresSource = { shared: string | undefined; own(): Promise<OwnCluster> }

/**
 * The "pg-terminate" and "pg-restart" faults: the child runs on PostgreSQL, in a schema of its
 * own, and at `atMs` this process terminates the backends serving it or restarts the server.
 * Past its retry bound a turn fails with a StorageError of reason connection and the child goes
 * on with loop(); within it the turn goes on.
 */
export async function postgresStage(source: PostgresSource, plan: RunPlan, atMs: number): Promise<Stage> {
  const restart = plan.fault.kind === "pg-restart"
  const cluster = restart || source.shared === undefined ? await source.own() : undefined
  const url = cluster?.url ?? source.shared ?? ""
  const schema = `durability_${randomBytes(6).toString("hex")}`
  const app = `agentloop-${schema}`
  const childURL = new URL(url)
  childURL.searchParams.set("application_name", app)
  const what = restart ? "PostgreSQL server restarted" : "PostgreSQL backends terminated"
  let outcome = `${what} after the child finished`
  return {
    args: [childURL.toString(), schema],
    kills: false,
    async apply(watch) {
      await pause(atMs)
      if (watch.exited) return
      if (cluster && restart) await cluster.restart()
      else if (!(await terminateOnceConnected(url, app, () => watch.exited))) return
      outcome = what
    },
    landed: (_killed, acks) =>
      outcome === what
        ? `${what}, ${acks.faults.length > 0 ? "past the retry bound: the child went on with loop()" : "retried: the turn went on"}`
        : outcome,
    check: (acks, checked) =>
      checkStorage(new PostgresStorage({ connectionString: url, max: 2 }, { schema }), acks, checked),
    dispose: async () => {
      await withClient(url, (client) => client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`))
    },
  }
}

/** Why the PostgreSQL faults cannot run here, or undefined. */
export function postgresUnsupported(restart: boolean): string | undefined {
  if (findPostgres()) return undefined
  if (!restart && process.env.AGENTLOOP_PG_URL) return undefined
  return "no PostgreSQL binaries (initdb, pg_ctl)"
}

/**
 * Terminates the child's backends, once it has one (it may still be starting); false when the
 * child exited before it had any.
 */
async function terminateOnceConnected(url: string, app: string, exited: () => boolean): Promise<boolean> {
  return withClient(url, async (client) => {
    while (!exited()) {
      const { rows } = await client.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
        [app],
      )
      if (rows.length > 0) return true
      await pause(10)
    }
    return false
  })
}

async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await use(client)
  } finally {
    await client.end()
  }
}
