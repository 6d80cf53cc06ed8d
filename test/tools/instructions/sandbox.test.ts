// Instruction files read through the sandbox's operations: real bubblewrap, skipped loudly
// without it (failing in CI, as the other sandbox tests).
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { defaultGlobalInstructions, instructionFiles } from "../../../src/tools/instructions/index.js"
import { sandboxOperations } from "../../../src/tools/sandbox/index.js"
import { ownedForSandbox, skipWithoutSandbox } from "../sandbox-available.js"
import { block, instructionTree, sourceInput } from "./tree.js"

const skipped = skipWithoutSandbox("instruction files on the sandbox")

let tree: Awaited<ReturnType<typeof instructionTree>>
beforeEach(async () => {
  tree = await instructionTree()
  for (const folder of [tree.base, tree.repo, tree.directory]) ownedForSandbox(folder)
})
afterEach(() => tree.cleanup())

describe.skipIf(skipped)("instructionFiles on the sandbox", () => {
  it("sees only what the sandbox lets it read: a file out of reach counts as absent", async () => {
    await tree.put("repo/AGENTS.md", "Root, out of reach.")
    await tree.put("home/.claude/CLAUDE.md", "Global, out of reach.")
    const here = await tree.put("repo/pkg/AGENTS.md", "Here.")
    const global = defaultGlobalInstructions(tree.home)
    const confined = sandboxOperations({ directory: tree.directory })
    const files = instructionFiles({ operations: confined, directory: tree.directory, global })
    expect(await files.source(sourceInput(tree.directory))).toEqual([block(here, "Here.")])

    const wider = sandboxOperations({ directory: tree.directory, readable: [tree.repo] })
    const seen = instructionFiles({ operations: wider, directory: tree.directory, global })
    expect(await seen.source(sourceInput(tree.directory))).toEqual([
      block(`${tree.repo}/AGENTS.md`, "Root, out of reach."),
      block(here, "Here."),
    ])
  })
})
