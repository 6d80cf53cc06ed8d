import type { WithParts } from "../message/info.js"
import type { FilePart, Part } from "../message/part.js"
import { INLINED_MIMES } from "../message/to-model-messages.js"

/** Whether the model receives `file` as a file (an image, a PDF), not as text the prompt inlined. */
export function isMedia(file: FilePart): boolean {
  return !INLINED_MIMES.has(file.mime)
}

/** Whether sending `message` sends media: a user's file, or a file a tool returned. */
export function holdsMedia(message: WithParts): boolean {
  return message.parts.some(
    (part) =>
      (part.type === "file" && isMedia(part)) ||
      (part.type === "tool" &&
        part.state.status === "completed" &&
        (part.state.attachments?.length ?? 0) > 0),
  )
}

/** The note that stands in for a file the model is not sent. */
export function attachedNote(file: FilePart): string {
  return `[Attached ${file.mime}: ${file.filename ?? "file"}]`
}

/** `file` as its note: a synthetic text part with the same IDs. */
export function asNote(file: FilePart): Part {
  const { id, sessionID, messageID } = file
  return { id, sessionID, messageID, type: "text", text: attachedNote(file), synthetic: true }
}
