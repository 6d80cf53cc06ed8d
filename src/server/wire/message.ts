import { z } from "zod"
import { Assistant, type MessageInfo, User, type WithParts } from "../../message/info.js"
import { Part } from "../../message/part.js"
import { toWireDiff, WireFileDiff } from "./diff.js"
import { toWireError, WireAssistantError } from "./error.js"

export const WireUser = User.omit({ summary: true }).extend({
  summary: z.object({ diffs: z.array(WireFileDiff) }).optional(),
})
/** An assistant message as OpenCode sends it: `mode` names the agent, errors carry OpenCode's names. */
export const WireAssistant = Assistant.omit({ costUnknown: true, error: true }).extend({
  mode: z.string(),
  error: WireAssistantError.optional(),
})
export const WireInfo = z.discriminatedUnion("role", [WireUser, WireAssistant])
export type WireInfo = z.infer<typeof WireInfo>

/** Parts go out as stored, except a refusal's `refusedBy`, which OpenCode's tool state lacks: it moves to `metadata`. */
export const WirePart = Part
export type WirePart = z.infer<typeof WirePart>

export const WireWithParts = z.object({ info: WireInfo, parts: z.array(WirePart) })
export type WireWithParts = z.infer<typeof WireWithParts>

export function toWireInfo(info: MessageInfo): WireInfo {
  if (info.role === "user") {
    const { summary, ...rest } = info
    return summary ? { ...rest, summary: { diffs: summary.diffs.map(toWireDiff) } } : rest
  }
  const { costUnknown: _, error, ...rest } = info
  return { ...rest, mode: info.agent, ...(error ? { error: toWireError(error) } : {}) }
}

export function toWirePart(part: Part): WirePart {
  if (part.type !== "tool" || part.state.status !== "error" || part.state.refusedBy === undefined) return part
  const { refusedBy, ...state } = part.state
  return { ...part, state: { ...state, metadata: { ...state.metadata, refusedBy } } }
}

export function toWireMessage({ info, parts }: WithParts): WireWithParts {
  return { info: toWireInfo(info), parts: parts.map(toWirePart) }
}
