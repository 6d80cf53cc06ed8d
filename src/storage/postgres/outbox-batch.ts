import type { CoordinatorMessage } from "../../coordination/port.js"
import { createSerialQueue } from "../../util/serial-queue.js"

/** NOTIFY payloads are capped at 8000 bytes; longer batches are read from the table. */
export const NOTIFY_LIMIT = 7_500

/**
 * How long after a batch went out the next one keeps gathering messages. A step publishes its
 * events a few at a time, after each of its writes, a millisecond or less apart on a local
 * server; sent as they came, each would be a transaction on the server and a wake-up of every
 * listening process (a lone session's 20-step prompt sent 105 batches; 25 with 10 ms). So an
 * event reaches the other processes up to this much later; a process that sent nothing for as
 * long sends at the end of the current turn of the event loop.
 */
export const GATHER_MS = 10

/** Messages to send together, each as its JSON text; `kept` are those stored (not deltas). */
export type Batch = { texts: string[]; kept: string[] }

type Open = { batch: Batch; bytes: number; sent: Promise<void> }

/**
 * Gathers published messages into batches for `send`, one batch at a time, in the order they
 * were published. A batch is sent GATHER_MS after the previous one went out (or at the end of
 * the current turn of the event loop when that is past); messages published meanwhile join it,
 * and the next one while it is on its way. A message that would make its batch's envelope
 * (`overhead` bytes besides the messages) too long for a NOTIFY starts the next batch, so that
 * gathering does not turn short batches into long ones read by reference.
 */
export function createGathering(overhead: number, send: (batch: Batch) => Promise<void>) {
  const sending = createSerialQueue()
  let open: Open | undefined
  let lastSent = Number.NEGATIVE_INFINITY

  function start(): Open {
    const next: Open = { batch: { texts: [], kept: [] }, bytes: overhead, sent: Promise.resolve() }
    next.sent = sending.run(async () => {
      const wait = lastSent + GATHER_MS - performance.now()
      await new Promise<void>((resolve) => (wait > 0 ? setTimeout(resolve, wait) : setImmediate(resolve)))
      lastSent = performance.now()
      // From here on, new messages go into the next batch.
      if (open === next) open = undefined
      return send(next.batch)
    })
    open = next
    return next
  }

  return {
    /** Resolves once the batch holding `message` is sent. */
    publish(message: CoordinatorMessage): Promise<void> {
      let text: string
      try {
        // Encoded now, once: the event is as it was when published.
        text = JSON.stringify(message)
      } catch (error) {
        return Promise.reject(error)
      }
      // Its comma in the array included.
      const bytes = Buffer.byteLength(text) + 1
      const target = open && open.bytes + bytes <= NOTIFY_LIMIT ? open : start()
      target.batch.texts.push(text)
      if (!isDelta(message)) target.batch.kept.push(text)
      target.bytes += bytes
      return target.sent
    },
    /** Resolves when everything published so far is sent. */
    drain: () => sending.run(async () => {}),
  }
}

/** A streamed delta: never stored, so a process that misses it goes without (the part's update has the text). */
export function isDelta(message: CoordinatorMessage): boolean {
  return message.type === "event" && message.event.type === "message.part.delta"
}
