import type { CoordinatorMessage } from "../../coordination/port.js"
import { createGrouping, type Pending } from "../grouping.js"

/** NOTIFY payloads are capped at 8000 bytes; longer groups are read from the table. */
export const NOTIFY_LIMIT = 7_500

/**
 * How long after a group went out the next one goes. A step publishes its events a few at a
 * time, after each of its writes, a millisecond or less apart on a local server; sent as they
 * came, each would be a transaction on the server and a wake-up of every listening process
 * (figures: bench/README.md). So an event reaches the other processes up to this
 * much later; a process that sent nothing for as long sends at the end of the current turn of
 * the event loop.
 */
export const GROUP_EVERY_MS = 10

/** Messages sent together, each as its JSON text; `kept` are those stored (not deltas). */
export type MessageGroup = { texts: string[]; kept: string[] }

type Waiting = Pending & { text: string; kept: boolean; bytes: number }

/**
 * Sends published messages in groups (see grouping.ts), one group at a time, in the order they
 * were published: a group goes GROUP_EVERY_MS after the one before went out (or at the end of
 * the current turn of the event loop when that is past), with the messages published until then.
 * A message that would make its group's envelope (`overhead` bytes besides the messages) too
 * long for a NOTIFY goes in the next group, so that grouping does not turn short groups into
 * long ones read by reference. A group succeeds or fails as a whole: it is one NOTIFY, which no
 * message of it can fail alone, and its messages must keep their order.
 */
export function createOutboxGroups(overhead: number, send: (group: MessageGroup) => Promise<void>) {
  const grouping = createGrouping<Waiting>({
    flush: { when: "spaced", everyMs: GROUP_EVERY_MS },
    take: (waiting) => {
      let bytes = overhead + waiting[0]!.bytes
      let count = 1
      while (count < waiting.length && bytes + waiting[count]!.bytes <= NOTIFY_LIMIT)
        bytes += waiting[count++]!.bytes
      return count
    },
    send: async (messages) => {
      const texts = messages.map((message) => message.text)
      const kept = messages.filter((message) => message.kept).map((message) => message.text)
      await send({ texts, kept })
      for (const message of messages) message.resolve()
    },
  })

  return {
    /** Resolves once the group holding `message` is sent. */
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
      return new Promise((resolve, reject) =>
        grouping.add({ text, kept: !isDelta(message), bytes, resolve, reject }),
      )
    },
    /** Resolves when everything published so far is sent. */
    drain: grouping.drained,
  }
}

/** A streamed delta: never stored, so a process that misses it goes without (the part's update has the text). */
export function isDelta(message: CoordinatorMessage): boolean {
  return message.type === "event" && message.event.type === "message.part.delta"
}
