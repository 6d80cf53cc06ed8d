import type { Hono } from "hono"
import { z } from "zod"
import { documented } from "./route-doc.js"

const VcsFileStatus = z.object({
  file: z.string(),
  additions: z.number().int().nonnegative(),
  deletions: z.number().int().nonnegative(),
  status: z.enum(["added", "deleted", "modified"]),
})
const VcsFileDiff = VcsFileStatus.extend({ patch: z.string().optional() })

/**
 * OpenCode's version-control reads (its terminal UI's `/diff` opens on `GET /vcs/diff`, and a
 * 404 ends the UI). This library does not run the project's git: a repository's own config can
 * name programs that git then runs (`core.fsmonitor`, `diff.external`), and the agent can write
 * that config. So the project is reported as not tracked, with no changes; what the agent changed
 * is the Snapshot's, read per session by `GET /session/:id/diff` (the UI's "last turn" source).
 */
export function vcsRoutes(app: Hono): void {
  app.get(
    "/vcs",
    documented({
      operationId: "vcs.get",
      summary: "Version control: not tracked (no branch)",
      response: z.object({ branch: z.string().optional(), default_branch: z.string().optional() }),
    }),
    (c) => c.json({}),
  )
  app.get(
    "/vcs/status",
    documented({
      operationId: "vcs.status",
      summary: "The working tree's changed files: none known, version control is not tracked",
      response: z.array(VcsFileStatus),
    }),
    (c) => c.json([]),
  )
  app.get(
    "/vcs/diff",
    documented({
      operationId: "vcs.diff",
      summary: "The working tree's diff: none known, version control is not tracked",
      query: z.object({
        mode: z.enum(["git", "branch"]),
        context: z.coerce.number().int().nonnegative().optional(),
      }),
      response: z.array(VcsFileDiff),
    }),
    (c) => c.json([]),
  )
  app.get(
    "/vcs/diff/raw",
    documented({
      operationId: "vcs.diff.raw",
      summary: "The working tree's diff as one patch: empty, version control is not tracked",
      stream: { media: "text/x-diff; charset=utf-8", schema: z.string() },
    }),
    (c) => c.body("", 200, { "Content-Type": "text/x-diff; charset=utf-8" }),
  )
}
