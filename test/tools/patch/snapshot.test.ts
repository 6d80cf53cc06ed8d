import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import type { Snapshot } from "../../../src/index.js"
import { GitSnapshot } from "../../../src/snapshot/git/index.js"
import { say } from "../../../src/testing/index.js"
import { localOperations } from "../../../src/tools/local-operations.js"
import { applyPatchTool } from "../../../src/tools/patch/index.js"
import { runtimeOnModel } from "./helpers.js"

const cleanup: string[] = []
afterEach(async () => {
  for (const dir of cleanup.splice(0)) await rm(dir, { recursive: true, force: true })
})

const PATCH = [
  "*** Begin Patch",
  "*** Add File: src/new.ts",
  "+export const made = 1",
  "*** Update File: src/app.ts",
  "-  return 1",
  "+  return 2",
  "*** Delete File: README.md",
  "*** Update File: docs/old.md",
  "*** Move to: docs/new.md",
  "-# Old",
  "+# New",
  "*** End Patch",
].join("\n")

/** One apply_patch call on a fresh directory, GitSnapshot used as given (declared files) or scanning the tree. */
async function session(declared: boolean) {
  const root = await mkdtemp(join(tmpdir(), "agentloop-patch-snapshot-"))
  cleanup.push(root)
  const directory = join(root, "work")
  await mkdir(join(directory, "src"), { recursive: true })
  await mkdir(join(directory, "docs"))
  await writeFile(join(directory, "README.md"), "readme\n")
  await writeFile(join(directory, "src/app.ts"), "export function main() {\n  return 1\n}\n")
  await writeFile(join(directory, "docs/old.md"), "# Old\n")
  const git = new GitSnapshot({ directory, dataDir: join(root, "data") })
  const scanning: Snapshot = {
    track: () => git.track(),
    patch: (hash) => git.patch(hash),
    diff: (from, to) => git.diff(from, to),
    restore: (hash) => git.restore(hash),
    revert: (patches) => git.revert(patches),
  }
  // A model apply_patch is offered to.
  const { runtime } = runtimeOnModel(
    "gpt-5",
    [[say.toolCall("apply_patch", { patchText: PATCH })], [say.text("done")]],
    {
      directory,
      tools: [applyPatchTool({ directory, operations: localOperations })],
      snapshot: declared ? git : scanning,
      permission: [{ permission: "*", pattern: "*", action: "allow" }],
    },
  )
  const { id: sessionID } = await runtime.session.create()
  await runtime.session.prompt({ sessionID, parts: [{ type: "text", text: "patch it" }] })
  const parts = (await runtime.session.messages(sessionID)).flatMap((message) => message.parts)
  const tool = parts.find((part) => part.type === "tool")
  const patched = parts.flatMap((part) => (part.type === "patch" ? [part.files] : []))
  const diff = await runtime.session.diff({ sessionID })
  await runtime.close()
  await git.close()
  return { status: tool?.type === "tool" ? tool.state.status : undefined, patched, diff }
}

describe("apply_patch and the step's snapshot", () => {
  it("records every file it touched, as a scan of the whole tree does", async () => {
    const known = await session(true)
    const scanned = await session(false)
    expect(known.status).toBe("completed")
    expect(known.patched).toEqual([["README.md", "docs/new.md", "docs/old.md", "src/app.ts", "src/new.ts"]])
    expect(known.patched).toEqual(scanned.patched)
    expect(known.diff).toEqual(scanned.diff)
    expect(known.diff.map((file) => [file.file, file.before, file.after])).toEqual([
      ["README.md", "readme\n", ""],
      ["docs/new.md", "", "# New\n"],
      ["docs/old.md", "# Old\n", ""],
      [
        "src/app.ts",
        "export function main() {\n  return 1\n}\n",
        "export function main() {\n  return 2\n}\n",
      ],
      ["src/new.ts", "", "export const made = 1\n"],
    ])
  }, 20_000)
})
