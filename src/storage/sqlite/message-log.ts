import type { CoordinatorMessage } from "../../coordination/port.js"
import { createSerialQueue } from "../../util/serial-queue.js"
import type { CoordinatorPolicy } from "./coordinator-options.js"
import { type Attempt, lastMessageID, messagesAfter, putMessage } from "./lease-rows.js"

/** How long a message stays stored for the other processes to read. */
const KEEP_MESSAGES_MS = 60_000
/** Messages read per look; more wait for the next one. */
const READ_LIMIT = 500

/**
 * The messages processes on one SQLite file send each other, as rows of `coordinator_message`:
 * a publish is one write (in the order of the calls), and each subscribed process reads the rows
 * after the last one it saw every `pollMs`. Rows older than a minute are deleted by the next
 * publish, so a process that stops reading for longer misses what was sent meanwhile.
 *
 * Events are not sent: a step publishes dozens (every streamed delta is one), and a write each
 * would make streaming cost writes, in a process alone with its file too. So only prompts,
 * cancels and answers travel, which people cause one at a time (see docs/scaling.md).
 */
export function createMessageLog(options: { attempt: Attempt; policy: CoordinatorPolicy; origin: string }) {
  const { attempt, policy, origin } = options
  const listeners = new Set<(message: CoordinatorMessage) => void>()
  const sending = createSerialQueue()
  let timer: NodeJS.Timeout | undefined
  let closed = false
  let heard!: () => void
  const listening = new Promise<void>((resolve) => {
    heard = resolve
  })
  const reading: Reading = { attempt, origin, listeners, cursor: undefined, heard }
  const read = () => readOnce(reading)

  function schedule(): void {
    timer = setTimeout(() => {
      void read().finally(() => {
        timer = undefined
        if (listeners.size > 0 && !closed) schedule()
      })
    }, policy.pollMs)
    // Reading never keeps the process alive.
    timer.unref()
  }

  return {
    /** Resolves once the next message the others publish will be delivered. */
    listening,
    publish(message: CoordinatorMessage): Promise<void> {
      if (closed || message.type === "event") return Promise.resolve()
      return sending.run(async () => {
        await attempt((db) => putMessage(db, origin, message, KEEP_MESSAGES_MS))
      })
    },
    subscribe(listener: (message: CoordinatorMessage) => void): () => void {
      listeners.add(listener)
      if (!timer && !closed) {
        // Where reading starts is set now (the common case runs synchronously), so messages
        // published after subscribe returns are delivered.
        if (reading.cursor === undefined) void read()
        schedule()
      }
      return () => {
        listeners.delete(listener)
      }
    },
    /** Stops reading; resolves once what was published before is stored (or failed). */
    async close(): Promise<void> {
      closed = true
      clearTimeout(timer)
      timer = undefined
      await sending.run(async () => {})
    },
  }
}

/** Where a process's reading of the log stands, and whom it delivers to. */
type Reading = {
  attempt: Attempt
  origin: string
  listeners: Iterable<(message: CoordinatorMessage) => void>
  /** The last row read; undefined until the first look sets it. */
  cursor: number | undefined
  /** Called once the first look has set where reading starts. */
  heard: () => void
}

/** One look: the first sets where reading starts, the next deliver what came since. */
async function readOnce(reading: Reading): Promise<void> {
  try {
    const rows = await reading.attempt((db) => {
      if (reading.cursor !== undefined) return messagesAfter(db, reading.cursor, READ_LIMIT)
      reading.cursor = lastMessageID(db)
      reading.heard()
      return []
    })
    for (const row of rows) {
      reading.cursor = Number(row.id)
      if (row.origin !== reading.origin) deliver(reading.listeners, row.payload, Number(row.created))
    }
  } catch {
    // The next look tries again from the same place.
  }
}

/**
 * Hands a stored message to the listeners. A cancel carries when it was sent: this process may
 * read it late (it was stalled or could not read), and it then stops only what started before it.
 */
function deliver(
  listeners: Iterable<(message: CoordinatorMessage) => void>,
  payload: string,
  created: number,
): void {
  let message: CoordinatorMessage
  try {
    message = JSON.parse(payload) as CoordinatorMessage
  } catch {
    return
  }
  if (message.type === "cancel") message = { ...message, sentAt: created }
  for (const listener of listeners) {
    try {
      listener(message)
    } catch {
      // One listener's failure is its own; the others and the next messages still arrive.
    }
  }
}
