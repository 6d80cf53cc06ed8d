import { rm } from "node:fs/promises"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { defaultGlobalInstructions, instructionFiles } from "../../../src/tools/instructions/index.js"
import { localOperations } from "../../../src/tools/local-operations.js"
import { block, instructionTree, sourceInput } from "./tree.js"

let tree: Awaited<ReturnType<typeof instructionTree>>
beforeEach(async () => {
  tree = await instructionTree()
})
afterEach(() => tree.cleanup())

/** The blocks the source gives for the tree's directory, no global files unless asked. */
async function blocks(options: Partial<Parameters<typeof instructionFiles>[0]> = {}) {
  const files = instructionFiles({
    operations: localOperations,
    directory: tree.directory,
    global: false,
    ...options,
  })
  return files.source(sourceInput(tree.directory))
}

describe("instructionFiles: the project's files", () => {
  it("takes AGENTS.md over CLAUDE.md, wherever each is up the tree", async () => {
    const agents = await tree.put("repo/AGENTS.md", "Use tabs.")
    await tree.put("repo/pkg/CLAUDE.md", "Use spaces.")
    expect(await blocks()).toEqual([block(agents, "Use tabs.")])
  })

  it("counts a .local.md alone as a hit of its name", async () => {
    await tree.put("repo/CLAUDE.md", "Claude's.")
    const local = await tree.put("repo/pkg/AGENTS.local.md", "Mine only.")
    expect(await blocks()).toEqual([block(local, "Mine only.")])
  })

  it("takes every hit from the root down to the directory, each file before its .local.md, nearest last", async () => {
    const root = await tree.put("repo/AGENTS.md", "Root.")
    const rootLocal = await tree.put("repo/AGENTS.local.md", "Root, local.")
    const here = await tree.put("repo/pkg/AGENTS.md", "Here.")
    expect(await blocks()).toEqual([
      block(root, "Root."),
      block(rootLocal, "Root, local."),
      block(here, "Here."),
    ])
  })

  it("stops at the work tree's root: a file above the .git folder is not the project's", async () => {
    await tree.put("AGENTS.md", "Above the repo.")
    const root = await tree.put("repo/AGENTS.md", "Root.")
    expect(await blocks()).toEqual([block(root, "Root.")])
  })

  it("takes a .git file (a worktree, a submodule) as the root too", async () => {
    await rm(join(tree.repo, ".git"), { recursive: true })
    await tree.put("repo/.git", "gitdir: /elsewhere\n")
    await tree.put("AGENTS.md", "Above the repo.")
    const root = await tree.put("repo/AGENTS.md", "Root.")
    expect(await blocks()).toEqual([block(root, "Root.")])
  })

  it("looks in the directory alone outside a work tree, or up to the root it is given", async () => {
    await rm(join(tree.repo, ".git"), { recursive: true })
    const root = await tree.put("repo/AGENTS.md", "Root.")
    const here = await tree.put("repo/pkg/AGENTS.md", "Here.")
    expect(await blocks()).toEqual([block(here, "Here.")])
    expect(await blocks({ root: tree.repo })).toEqual([block(root, "Root."), block(here, "Here.")])
  })

  it("looks for the names it is given, in their order", async () => {
    await tree.put("repo/AGENTS.md", "Agents.")
    const claude = await tree.put("repo/CLAUDE.md", "Claude.")
    expect(await blocks({ files: ["CLAUDE.md"] })).toEqual([block(claude, "Claude.")])
  })

  it("leaves out empty files", async () => {
    await tree.put("repo/AGENTS.md", "")
    const here = await tree.put("repo/pkg/AGENTS.md", "Here.")
    expect(await blocks()).toEqual([block(here, "Here.")])
  })
})

describe("instructionFiles: global and extra files", () => {
  it("takes the first global place that has a file, with its .local.md, after the project's", async () => {
    const project = await tree.put("repo/AGENTS.md", "Project.")
    const opencode = await tree.put("home/.config/opencode/AGENTS.md", "OpenCode's.")
    await tree.put("home/.claude/CLAUDE.md", "Claude's.")
    const global = defaultGlobalInstructions(tree.home)
    expect(global).toEqual([
      join(tree.home, ".config/opencode/AGENTS.md"),
      join(tree.home, ".claude/CLAUDE.md"),
    ])
    expect(await blocks({ global })).toEqual([block(project, "Project."), block(opencode, "OpenCode's.")])

    await rm(opencode)
    const claudeLocal = await tree.put("home/.claude/CLAUDE.local.md", "Claude's, local.")
    expect(await blocks({ global })).toEqual([
      block(project, "Project."),
      block(join(tree.home, ".claude/CLAUDE.md"), "Claude's."),
      block(claudeLocal, "Claude's, local."),
    ])
    expect(await blocks({ global: false })).toEqual([block(project, "Project.")])
  })

  it("adds the host's paths and globs last, relative to the directory or absolute, each file once", async () => {
    const project = await tree.put("repo/pkg/AGENTS.md", "Project.")
    const global = await tree.put("home/.claude/CLAUDE.md", "Global.")
    const b = await tree.put("repo/pkg/docs/b.md", "B.")
    const a = await tree.put("repo/pkg/docs/a.md", "A.")
    await tree.put("repo/pkg/docs/skip.txt", "Not markdown.")
    const style = await tree.put("repo/STYLE.md", "Style.")
    const result = await blocks({
      global: defaultGlobalInstructions(tree.home),
      extra: ["docs/*.md", style, "AGENTS.md", "missing.md"],
    })
    expect(result).toEqual([
      block(project, "Project."),
      block(global, "Global."),
      block(a, "A."),
      block(b, "B."),
      block(style, "Style."),
    ])
  })
})
