import { z } from "zod"

/** What one file looked like before and after a change. */
export const FileDiff = z.object({
  file: z.string(),
  before: z.string(),
  after: z.string(),
  additions: z.number().int().nonnegative(),
  deletions: z.number().int().nonnegative(),
})
export type FileDiff = z.infer<typeof FileDiff>
