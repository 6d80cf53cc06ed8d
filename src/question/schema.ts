import { z } from "zod"
import { schema as id } from "../id/identifier.js"

/** One choice offered for a question: the label the answer carries and a description. */
export const Option = z.object({ label: z.string().min(1), description: z.string() })
export type Option = z.infer<typeof Option>

/**
 * One question: its text, a short header (at most 30 characters), the options, whether several may
 * be chosen, and whether free text is accepted.
 */
export const Info = z.object({
  question: z.string().min(1),
  header: z.string().max(30),
  options: z.array(Option),
  multiple: z.boolean().optional(),
  /** Whether a free-text answer is accepted besides the options. */
  custom: z.boolean().default(true),
})
export type Info = z.infer<typeof Info>

/** A pending question to the user: one or more questions, from a session, often from a tool call. */
export const Request = z.object({
  id: id("question"),
  sessionID: id("session"),
  questions: z.array(Info).min(1),
  tool: z.object({ messageID: id("message"), callID: z.string() }).optional(),
})
export type Request = z.infer<typeof Request>

/** The labels (or free text) chosen for one question. */
export const Answer = z.array(z.string())
export type Answer = z.infer<typeof Answer>

/** The answers to a request, one `Answer` per question, in order. */
export const Reply = z.object({ answers: z.array(Answer) })
export type Reply = z.infer<typeof Reply>
