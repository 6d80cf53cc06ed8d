import type pg from "pg"
import { SchemaVersionError } from "../schema-version-error.js"

/**
 * The schema, one step per version. Rows are JSON text rather than jsonb: jsonb refuses
 * `\u0000` and lone surrogates, which model output can hold, while the text JSON.stringify
 * writes keeps every string (it escapes both). IDs compare byte by byte (`COLLATE "C"`), as
 * JavaScript compares the ASCII IDs agentloop makes. Each row kind has its own table so a part
 * is written alone; listing a session's messages with their parts is one index range each.
 */
const MIGRATIONS: ((schema: string) => string)[] = [
  (s) => `
    CREATE TABLE "${s}".session (
      id text COLLATE "C" PRIMARY KEY,
      parent_id text COLLATE "C" REFERENCES "${s}".session (id) ON DELETE CASCADE,
      data text NOT NULL,
      stamp bigint
    );
    CREATE INDEX session_parent ON "${s}".session (parent_id, id);
    CREATE TABLE "${s}".message (
      session_id text COLLATE "C" NOT NULL REFERENCES "${s}".session (id) ON DELETE CASCADE,
      id text COLLATE "C" NOT NULL,
      data text NOT NULL,
      stamp bigint,
      PRIMARY KEY (session_id, id)
    );
    CREATE TABLE "${s}".part (
      session_id text COLLATE "C" NOT NULL,
      message_id text COLLATE "C" NOT NULL,
      id text COLLATE "C" NOT NULL,
      data text NOT NULL,
      stamp bigint,
      PRIMARY KEY (session_id, message_id, id),
      FOREIGN KEY (session_id, message_id) REFERENCES "${s}".message (session_id, id) ON DELETE CASCADE
    );
    CREATE TABLE "${s}".value (key bytea PRIMARY KEY, value text NOT NULL);
    -- A row whose data another writer changes loses its stamp, so it is validated on read:
    -- PostgresStorage flips the stamp's sign on each of its own updates.
    CREATE FUNCTION "${s}".clear_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.stamp IS NOT DISTINCT FROM OLD.stamp THEN NEW.stamp := NULL; END IF;
        RETURN NEW;
      END $$;
    CREATE TRIGGER session_stamp BEFORE UPDATE ON "${s}".session FOR EACH ROW EXECUTE FUNCTION "${s}".clear_stamp();
    CREATE TRIGGER message_stamp BEFORE UPDATE ON "${s}".message FOR EACH ROW EXECUTE FUNCTION "${s}".clear_stamp();
    CREATE TRIGGER part_stamp BEFORE UPDATE ON "${s}".part FOR EACH ROW EXECUTE FUNCTION "${s}".clear_stamp();
  `,
  // The coordinator's message log (see outbox.ts), which version 1 left to the first long batch
  // to create: a process whose listener reconnects reads back what it missed.
  (s) => `
    CREATE TABLE IF NOT EXISTS "${s}".coordinator_messages (
      id bigserial PRIMARY KEY, payload text NOT NULL, created timestamptz NOT NULL DEFAULT now());
    ALTER TABLE "${s}".coordinator_messages ADD COLUMN IF NOT EXISTS origin text, ADD COLUMN IF NOT EXISTS seq bigint;
    CREATE INDEX IF NOT EXISTS coordinator_messages_created ON "${s}".coordinator_messages (created);
  `,
]

export const LATEST_VERSION = MIGRATIONS.length

/**
 * Creates or upgrades the schema in one transaction, under a lock that makes processes starting
 * together take turns. A schema a newer agentloop migrated fails with SchemaVersionError.
 */
export async function migrate(client: pg.PoolClient, schema: string): Promise<void> {
  await client.query("BEGIN")
  try {
    await client.query("SELECT pg_advisory_xact_lock(hashtext('agentloop.migrate'), hashtext($1))", [schema])
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`)
    await client.query(
      `CREATE TABLE IF NOT EXISTS "${schema}".meta (key text PRIMARY KEY, value integer NOT NULL)`,
    )
    const { rows } = await client.query<{ value: number }>(
      `SELECT value FROM "${schema}".meta WHERE key = 'schema_version'`,
    )
    const found = rows[0]?.value ?? 0
    if (found > LATEST_VERSION)
      throw SchemaVersionError.of(found, LATEST_VERSION, `PostgreSQL schema "${schema}"`)
    for (let version = found; version < LATEST_VERSION; version++)
      await client.query(MIGRATIONS[version]!(schema))
    if (found < LATEST_VERSION)
      await client.query(
        `INSERT INTO "${schema}".meta (key, value) VALUES ('schema_version', $1)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
        [LATEST_VERSION],
      )
    await client.query("COMMIT")
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined)
    throw error
  }
}
