import type { AskDeps } from "../ask/deps.js"
import type { ApprovalScope } from "../permission/approvals.js"
import { createPermissionService, type PermissionHandler } from "../permission/service.js"
import { createQuestionService, type QuestionHandler } from "../question/service.js"
import type { StoredDecision, ToolCallRef } from "../schema/ask.js"

/**
 * A runtime's permission and question services, and what the loop needs of their stored
 * requests. A reply to a request whose asking process stopped resumes that tool call through
 * `resume` (durable asks).
 */
export function createAskServices(
  deps: AskDeps & {
    onPermission?: PermissionHandler | undefined
    onQuestion?: QuestionHandler | undefined
    /** What an "always" covers; default "session". */
    approvalScope?: ApprovalScope | undefined
  },
  resume: (call: ToolCallRef, decision: StoredDecision) => void,
) {
  const permission = createPermissionService({
    ...deps,
    approvalScope: deps.approvalScope ?? "session",
    onStoredReply: async (request, reply, message) => {
      if (!request.tool) return
      const { permission: name, patterns } = request
      resume(
        { sessionID: request.sessionID, ...request.tool },
        { type: "permission", permission: name, patterns, reply, message },
      )
    },
  })
  const question = createQuestionService({
    ...deps,
    onStoredAnswer: async (request, answers) => {
      if (request.tool)
        resume({ sessionID: request.sessionID, ...request.tool }, { type: "question", answers })
    },
  })
  const stored = {
    storedCalls: async (sessionID: string) =>
      new Set([...(await permission.storedCalls(sessionID)), ...(await question.storedCalls(sessionID))]),
    forgetStored: async (sessionID: string) => {
      await permission.forgetStored(sessionID)
      await question.forgetStored(sessionID)
    },
    /** Whether answers recorded for the session's stored requests still wait to be acted on. */
    hasRecorded: async (sessionID: string) =>
      (await permission.hasRecorded(sessionID)) || (await question.hasRecorded(sessionID)),
    resumeRecorded: async (sessionID: string) => {
      await permission.resumeRecorded(sessionID)
      await question.resumeRecorded(sessionID)
    },
  }
  return { permission, question, stored }
}
