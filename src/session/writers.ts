import { parseInput } from "../error/invalid-input.js"
import { isID } from "../id/identifier.js"
import { parseID } from "../id/parse-id.js"
import type { Info as MessageInfo, WithParts } from "../message/info.js"
import type { Part } from "../message/part.js"
import { writeMarked } from "../storage/built-row.js"
import type { SessionDeps } from "./deps.js"
import { creationFloor, sessionFloor } from "./floor.js"
import { PartDelta, SaveMessageInput } from "./input.js"

/**
 * The low-level writers the processor and custom loops use. Each writes one row (rows are
 * validated by storage, except those the processor marked as its own: see markBuilt) and
 * publishes its event; a delta is only published.
 */
export function createMessageWriters(deps: SessionDeps) {
  const { storage, bus, ids } = deps
  // The part the last well-formed delta was for: its deltas come one after another, so the
  // IDs are checked once per part, not once per delta.
  let lastPart: Pick<PartDelta, "sessionID" | "messageID" | "partID"> | undefined
  const isPartDelta = (input: PartDelta): boolean => {
    if (!isDeltaShaped(input)) return false
    const known =
      lastPart !== undefined &&
      input.partID === lastPart.partID &&
      input.messageID === lastPart.messageID &&
      input.sessionID === lastPart.sessionID
    if (known) return true
    if (!(isID("session", input.sessionID) && isID("message", input.messageID) && isID("part", input.partID)))
      return false
    lastPart = { sessionID: input.sessionID, messageID: input.messageID, partID: input.partID }
    return true
  }

  return {
    /** An ID for a new message of this session, sorting after every message and part already in it. */
    async newMessageID(sessionID: string): Promise<string> {
      const id = parseID("sessionID", "session", sessionID)
      deps.assertOpen()
      return ids.ascending("message", (await sessionFloor(storage, id)) ?? creationFloor(id))
    },

    /** An ID for a new part of a message, sorting after the message and earlier parts made here. */
    newPartID(messageID: string): string {
      return ids.ascending("part", parseID("messageID", "message", messageID))
    },

    async updateMessage(info: MessageInfo): Promise<MessageInfo> {
      deps.assertOpen()
      await writeMarked([info], () => storage.write([{ type: "message.put", info }]))
      deps.messageOwners?.record(info.id, info.sessionID)
      bus.publish("message.updated", { sessionID: info.sessionID, info })
      return info
    },

    /** Writes a message with its parts in one atomic write, then publishes each. */
    async saveMessage(message: WithParts): Promise<WithParts> {
      deps.assertOpen()
      try {
        await writeMarked([message.info, ...message.parts], () =>
          storage.write([
            { type: "message.put", info: message.info },
            ...message.parts.map((part) => ({ type: "part.put" as const, part })),
          ]),
        )
      } catch (error) {
        // Storage checks every row against the same schemas and writes nothing when one fails;
        // the input is checked only then, to name a malformed field as the caller wrote it.
        parseInput("session.saveMessage input", SaveMessageInput, { message })
        throw error
      }
      deps.messageOwners?.record(message.info.id, message.info.sessionID)
      bus.publish("message.updated", { sessionID: message.info.sessionID, info: message.info })
      for (const part of message.parts)
        bus.publish("message.part.updated", { sessionID: part.sessionID, part })
      return message
    },

    async updatePart<P extends Part>(part: P): Promise<P> {
      deps.assertOpen()
      await writeMarked([part], () => storage.write([{ type: "part.put", part }]))
      bus.publish("message.part.updated", { sessionID: part.sessionID, part })
      return part
    },

    /** Publishes a streamed piece of a text or reasoning part. Never written: the part itself is. */
    updatePartDelta(input: PartDelta): void {
      deps.assertOpen()
      // Called once per streamed delta: a well-formed delta is checked by hand, zod only names
      // what is wrong with the rest.
      bus.publish(
        "message.part.delta",
        isPartDelta(input) ? input : parseInput("part delta", PartDelta, input),
      )
    },

    async removeMessage(input: { sessionID: string; messageID: string }): Promise<void> {
      const sessionID = parseID("sessionID", "session", input.sessionID)
      const messageID = parseID("messageID", "message", input.messageID)
      deps.assertOpen()
      await storage.write([{ type: "message.remove", sessionID, messageID }])
      bus.publish("message.removed", { sessionID, messageID })
    },

    async removePart(input: { sessionID: string; messageID: string; partID: string }): Promise<void> {
      const sessionID = parseID("sessionID", "session", input.sessionID)
      const messageID = parseID("messageID", "message", input.messageID)
      const partID = parseID("partID", "part", input.partID)
      deps.assertOpen()
      await storage.write([{ type: "part.remove", sessionID, messageID, partID }])
      bus.publish("message.part.removed", { sessionID, messageID, partID })
    },
  }
}

const DELTA_KEYS = 5

/** A delta's shape, its IDs aside: an object of the five keys, a text field and a string delta. */
function isDeltaShaped(input: PartDelta): boolean {
  return (
    typeof input === "object" &&
    input !== null &&
    input.field === "text" &&
    typeof input.delta === "string" &&
    Object.keys(input).length === DELTA_KEYS
  )
}
