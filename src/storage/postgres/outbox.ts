import type pg from "pg"
import type { CoordinatorMessage } from "../../coordination/port.js"
import { createOutboxGroups, type MessageGroup, NOTIFY_LIMIT } from "./outbox-groups.js"
import type { StatementName } from "./queries.js"

/** How long a group stays in its table: to be fetched by reference, and read back after a reconnect. */
const KEEP_MESSAGES = "10 minutes"
/** How often a process deletes the rows older than that. */
const CLEANUP_EVERY_MS = 60_000
/** The most groups a reconnected listener reads back (the newest): its work stays bounded. */
const CATCH_UP_LIMIT = 1_000

/**
 * What one NOTIFY carries: a group of messages, or a reference to a group stored in the table;
 * `seq` numbers the stored groups of one origin, in the order it sent them.
 */
export type Envelope = { origin: string; seq?: number; messages?: CoordinatorMessage[]; ref?: string }

/** A stored group another process sent, read back. */
export type StoredGroup = { origin: string; seq: number; messages: CoordinatorMessage[] }

/**
 * Sends a process's messages in the order they were published, in groups (see
 * createOutboxGroups): a step publishes its events a few at a time, after each of its writes, and a
 * NOTIFY each would cost every process a wake-up and the server a transaction. Each group is
 * also stored in `table`, in the same statement, except streamed deltas (a group of deltas alone
 * is not stored): a process whose listening connection was down reads back what it missed
 * (`missed`). A group too long for NOTIFY (one long message) is sent by reference to its row.
 */
export function createOutbox(options: OutboxOptions) {
  const { pool, origin, table } = options
  const groups = createOutboxGroups(
    Buffer.byteLength(envelopeText(origin, Number.MAX_SAFE_INTEGER, "[]")),
    send,
  )
  let seq = 0
  let cleaned = 0

  async function send(group: MessageGroup): Promise<void> {
    await options.ready()
    // A group of deltas alone is not stored, nor numbered.
    const stored = await notify(options, group, () => ++seq)
    if (stored) await cleanup()
  }

  async function cleanup(): Promise<void> {
    if (Date.now() - cleaned < CLEANUP_EVERY_MS) return
    cleaned = Date.now()
    await pool.query(`DELETE FROM ${table} WHERE created < now() - interval '${KEEP_MESSAGES}'`)
  }

  return {
    /** Resolves once the group holding `message` is sent. */
    publish: groups.publish,
    /** Resolves when everything published so far is sent. */
    drain: groups.drain,
    /** A group stored by reference. */
    async fetch(ref: string): Promise<CoordinatorMessage[]> {
      const { rows } = await pool.query<{ payload: string }>(`SELECT payload FROM ${table} WHERE id = $1`, [
        ref,
      ])
      return rows[0] ? (JSON.parse(rows[0].payload) as CoordinatorMessage[]) : []
    },
    /** The server's clock now, as text that reads back as the same timestamptz. */
    async now(): Promise<string> {
      const { rows } = await pool.query<{ now: string }>("SELECT now()::text AS now")
      return rows[0]!.now
    },
    /**
     * The groups other processes stored since `since` (server time) and after the last one of
     * their origin in `seen`, in the order they were sent; the newest CATCH_UP_LIMIT of them.
     */
    missed: (since: string, seen: ReadonlyMap<string, number>) => missed(options, since, seen),
  }
}

type OutboxOptions = {
  pool: pg.Pool
  channel: string
  origin: string
  table: string
  ready: () => Promise<void>
  /** Names its statements when they are prepared (see statementNames). */
  name: StatementName
}

/**
 * Sends one group as one statement: a NOTIFY of its messages, stored in the same statement
 * unless they are all deltas, or stored and notified by reference when too long for a NOTIFY.
 * `next` numbers a stored group; whether it was stored.
 */
async function notify(options: OutboxOptions, group: MessageGroup, next: () => number): Promise<boolean> {
  const { pool, channel, origin, table, name } = options
  // Each message was encoded once, when published: the envelope is their texts inside its
  // own, as JSON.stringify would write it (see envelopeText).
  const encoded = `[${group.texts.join(",")}]`
  if (group.kept.length === 0) {
    const plain = envelopeText(origin, undefined, encoded)
    if (Buffer.byteLength(plain) <= NOTIFY_LIMIT) {
      await pool.query({ name: name("notify"), text: "SELECT pg_notify($1, $2)", values: [channel, plain] })
      return false
    }
  }
  const number = next()
  const text = envelopeText(origin, number, encoded)
  if (Buffer.byteLength(text) <= NOTIFY_LIMIT)
    await pool.query({
      name: name("publish"),
      text: `WITH stored AS (INSERT INTO ${table} (origin, seq, payload) VALUES ($3, $4, $5))
         SELECT pg_notify($1, $2)`,
      values: [
        channel,
        text,
        origin,
        number,
        group.kept.length === group.texts.length ? encoded : `[${group.kept.join(",")}]`,
      ],
    })
  else
    await pool.query({
      name: name("publish-ref"),
      text: `WITH stored AS (INSERT INTO ${table} (origin, seq, payload) VALUES ($3, $4, $2) RETURNING id)
         SELECT pg_notify($1, json_build_object('origin', $3::text, 'seq', $4::bigint, 'ref', id::text)::text)
         FROM stored`,
      values: [channel, encoded, origin, number],
    })
  return true
}

/** The groups other processes stored (see the outbox's `missed`). */
async function missed(
  options: OutboxOptions,
  since: string,
  seen: ReadonlyMap<string, number>,
): Promise<StoredGroup[]> {
  const { pool, origin, table } = options
  const { rows } = await pool.query<{ origin: string; seq: string; payload: string }>(
    `SELECT origin, seq::text AS seq, payload FROM (
           SELECT id, origin, seq, payload FROM ${table}
           WHERE created >= $1::timestamptz AND origin <> $2
             AND seq > COALESCE(($3::jsonb ->> origin)::bigint, 0)
           ORDER BY id DESC LIMIT $4
         ) newest ORDER BY id`,
    [since, origin, JSON.stringify(Object.fromEntries(seen)), CATCH_UP_LIMIT],
  )
  return rows.map((row) => ({
    origin: row.origin,
    seq: Number(row.seq),
    messages: JSON.parse(row.payload) as CoordinatorMessage[],
  }))
}

/**
 * `JSON.stringify({ origin, seq, messages })` (an Envelope) from the messages' own JSON text.
 * It starts with the origin, so a process tells its own notifications by their start (see
 * ownPrefix) without parsing them.
 */
export function envelopeText(origin: string, seq: number | undefined, messages: string): string {
  const numbered = seq === undefined ? "" : `,"seq":${seq}`
  return `{"origin":${JSON.stringify(origin)}${numbered},"messages":${messages}}`
}

/** How an envelope `origin` sent with its messages inline starts. */
export function ownPrefix(origin: string): string {
  return `{"origin":${JSON.stringify(origin)},`
}
