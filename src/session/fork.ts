import type { Generator } from "../id/identifier.js"
import type { WithParts } from "../message/info.js"
import type { FilePart, Part } from "../message/part.js"

/**
 * Copies messages into another session with fresh IDs, in the same order, remapping every
 * reference between them (assistant parentIDs, compaction tails, tool attachments).
 */
export function copyMessages(messages: readonly WithParts[], sessionID: string, ids: Generator): WithParts[] {
  const messageIDs = new Map<string, string>()
  for (const message of messages) messageIDs.set(message.info.id, ids.ascending("message"))
  const remap = (messageID: string) => messageIDs.get(messageID) ?? messageID

  return messages.map(({ info, parts }) => {
    const messageID = remap(info.id)
    const copiedInfo =
      info.role === "assistant"
        ? { ...info, id: messageID, sessionID, parentID: remap(info.parentID) }
        : { ...info, id: messageID, sessionID }
    const moved = <P extends Part>(part: P): P => ({
      ...part,
      id: ids.ascending("part"),
      sessionID,
      messageID,
    })
    const copiedParts = parts.map((part): Part => {
      if (part.type === "compaction" && part.tailStartID !== undefined)
        return { ...moved(part), tailStartID: remap(part.tailStartID) }
      if (part.type === "tool" && part.state.status === "completed" && part.state.attachments)
        return {
          ...moved(part),
          state: { ...part.state, attachments: part.state.attachments.map((file: FilePart) => moved(file)) },
        }
      return moved(part)
    })
    return { info: copiedInfo, parts: copiedParts }
  })
}
