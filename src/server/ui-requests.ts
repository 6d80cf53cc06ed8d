import type { Event } from "../schema/events.js"
import type { Request as PermissionRequest } from "../schema/permission.js"
import type { Request as QuestionRequest } from "../schema/question.js"
import type { UIChunk } from "./ui-chunk.js"

/**
 * Permission and question requests as `data-permission` / `data-question` chunks, the part id
 * being the request's: asked, the data is the request; answered, the same part again with the
 * reply (`reply`, `answers` or `rejected`), so a page closes its dialog whoever answered.
 */
export function createRequestChunks(emit: (chunk: UIChunk) => void) {
  const permissions = new Map<string, PermissionRequest>()
  const questions = new Map<string, QuestionRequest>()

  /** Whether the event was a request's; its chunks are emitted. */
  return function accept(event: Event): boolean {
    switch (event.type) {
      case "permission.asked":
        permissions.set(event.properties.id, event.properties)
        emit({ type: "data-permission", id: event.properties.id, data: event.properties })
        return true
      case "permission.replied": {
        const request = permissions.get(event.properties.requestID)
        if (request)
          emit({
            type: "data-permission",
            id: request.id,
            data: { ...request, reply: event.properties.reply },
          })
        return true
      }
      case "question.asked":
        questions.set(event.properties.id, event.properties)
        emit({ type: "data-question", id: event.properties.id, data: event.properties })
        return true
      case "question.replied":
      case "question.rejected": {
        const request = questions.get(event.properties.requestID)
        const outcome =
          event.type === "question.replied" ? { answers: event.properties.answers } : { rejected: true }
        if (request) emit({ type: "data-question", id: request.id, data: { ...request, ...outcome } })
        return true
      }
      default:
        return false
    }
  }
}
