import type { Reply } from "./permission.js"
import type { Answer } from "./question.js"

/** The answer that resumes a tool call whose process stopped while it waited for a human. */
export type StoredDecision =
  | { type: "permission"; permission: string; patterns: string[]; reply: Reply; message?: string | undefined }
  | { type: "question"; answers: Answer[] | undefined }

/** Where a tool call is: its session, its assistant message, its call ID. */
export type ToolCallRef = { sessionID: string; messageID: string; callID: string }
