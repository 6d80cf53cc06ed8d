import { z } from "zod"
import { SessionInfo } from "../../schema/session.js"
import { toWireDiff, WireFileDiff } from "./diff.js"

/**
 * One runtime serves one directory, which OpenCode's clients see as one project. OpenCode names a
 * project without a version-control root "global"; the clients need no more than a stable ID.
 */
export const PROJECT_ID = "global"

/** A session as OpenCode's API sends it: with its project, diffs as patches, no agentloop-only fields. */
export const WireSession = SessionInfo.omit({ costUnknown: true, summary: true, model: true }).extend({
  projectID: z.string(),
  model: z.object({ id: z.string(), providerID: z.string() }).optional(),
  summary: z
    .object({
      additions: z.number().int().nonnegative(),
      deletions: z.number().int().nonnegative(),
      files: z.number().int().nonnegative(),
      diffs: z.array(WireFileDiff).optional(),
    })
    .optional(),
})
export type WireSession = z.infer<typeof WireSession>

export function toWireSession(info: SessionInfo): WireSession {
  const { costUnknown: _, summary, model, ...rest } = info
  return {
    ...rest,
    projectID: PROJECT_ID,
    ...(model ? { model: { id: model.modelID, providerID: model.providerID } } : {}),
    ...(summary ? { summary: { ...summary, diffs: summary.diffs?.map(toWireDiff) } } : {}),
  }
}
