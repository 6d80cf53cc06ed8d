import pg from "pg"
import { afterAll, describe } from "vitest"

/**
 * What a PostgreSQL suite file shares: the server's URL (AGENTLOOP_PG_URL, which
 * test/setup/postgres.ts sets when it starts one), `suite`, and `dropAfter(schema)`, whose schemas
 * are dropped once the file's tests are done, after `cleanup` (connections and processes the
 * file opened). Without a server `suite` skips: the global setup has said so loudly, and with CI
 * set it fails the run instead, so this is the one place a PostgreSQL suite skips.
 */
export function postgresSuite(options: { cleanup?: () => unknown } = {}) {
  const url = process.env.AGENTLOOP_PG_URL
  const schemas: string[] = []
  afterAll(async () => {
    await options.cleanup?.()
    if (!url) return
    const pool = new pg.Pool({ connectionString: url })
    for (const schema of schemas) await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
    await pool.end()
  })
  return {
    url,
    suite: url ? describe : describe.skip,
    dropAfter(schema: string): string {
      schemas.push(schema)
      return schema
    },
  }
}
