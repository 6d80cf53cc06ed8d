import { afterEach, beforeEach, describe, expect, it } from "vitest"
import type { MessageV2, Tool } from "../../../src/index.js"
import { createTestRuntime, say } from "../../../src/testing/index.js"
import { runTool } from "../../../src/tool/ai-tools.js"
import { type InstructionFilesOptions, instructionFiles } from "../../../src/tools/instructions/index.js"
import { localOperations } from "../../../src/tools/local-operations.js"
import { readTool } from "../../../src/tools/read.js"
import { block, instructionTree, sourceInput } from "./tree.js"

let tree: Awaited<ReturnType<typeof instructionTree>>
beforeEach(async () => {
  tree = await instructionTree()
  await tree.put("repo/pkg/AGENTS.md", "The directory's own.")
  await tree.put("repo/pkg/sub/x.ts", "export const x = 1\n")
  await tree.put("repo/pkg/sub/y.ts", "export const y = 2\n")
})
afterEach(() => tree.cleanup())

const reminder = (...blocks: string[]) => `\n\n<system-reminder>\n${blocks.join("\n\n")}\n</system-reminder>`

function setup(options: Partial<InstructionFilesOptions> = {}) {
  const files = instructionFiles({
    operations: localOperations,
    directory: tree.directory,
    global: false,
    ...options,
  })
  const read = readTool({
    directory: tree.directory,
    operations: localOperations,
    instructions: files.nested,
  })
  return { files, read }
}

/** A tool context for `turnID` of `sessionID`, as the runtime gives one to a step of that turn. */
function contextOf(turnID: string, sessionID = "session"): Tool.Context {
  return {
    sessionID,
    messageID: `assistant-${turnID}`,
    turnID,
    callID: "call",
    agent: "build",
    abort: new AbortController().signal,
    metadata: async () => {},
    ask: async () => {},
  }
}

describe("nested instruction files on read", () => {
  it("attaches a subfolder's AGENTS.md to the first read of a turn only, and again the next turn", async () => {
    const nested = await tree.put("repo/pkg/sub/AGENTS.md", "Sub rules.")
    const { read } = setup()
    const first = await runTool(read, { filePath: "sub/x.ts" }, contextOf("turn-1"))
    expect(first.output.endsWith(reminder(block(nested, "Sub rules.")))).toBe(true)
    expect(first.metadata.loaded).toEqual([nested])

    const again = await runTool(read, { filePath: "sub/y.ts" }, contextOf("turn-1"))
    expect(again.output).not.toContain("<system-reminder>")
    expect(again.metadata.loaded ?? []).toEqual([])

    const other = await runTool(read, { filePath: "sub/x.ts" }, contextOf("turn-1", "other-session"))
    expect(other.metadata.loaded).toEqual([nested])

    const next = await runTool(read, { filePath: "sub/x.ts" }, contextOf("turn-2"))
    expect(next.metadata.loaded).toEqual([nested])
  })

  it("walks from the file's folder up to the directory (not its own file), outer folders first, first name per folder", async () => {
    const sub = await tree.put("repo/pkg/sub/AGENTS.md", "Sub rules.")
    await tree.put("repo/pkg/sub/deep/AGENTS.local.md", "Deep, local.")
    await tree.put("repo/pkg/sub/deep/CLAUDE.md", "Deep, Claude's.")
    const deep = await tree.put("repo/pkg/sub/deep/AGENTS.md", "Deep.")
    const deepLocal = `${deep.slice(0, -".md".length)}.local.md`
    await tree.put("repo/pkg/sub/deep/z.ts", "z\n")
    const { read } = setup()
    const result = await runTool(read, { filePath: "sub/deep/z.ts" }, contextOf("turn-1"))
    expect(result.metadata.loaded).toEqual([sub, deep, deepLocal])
    expect(result.output).toContain(
      reminder(block(sub, "Sub rules."), block(deep, "Deep."), block(deepLocal, "Deep, local.")),
    )
  })

  it("attaches nothing when the file read is the instruction file itself, or lies outside the directory", async () => {
    const nested = await tree.put("repo/pkg/sub/AGENTS.md", "Sub rules.")
    await tree.put("repo/other/AGENTS.md", "Elsewhere.")
    await tree.put("repo/other/o.ts", "o\n")
    const { read } = setup()
    const itself = await runTool(read, { filePath: "sub/AGENTS.md" }, contextOf("turn-1"))
    expect(itself.metadata.loaded ?? []).toEqual([])
    const outside = await runTool(read, { filePath: "../other/o.ts" }, contextOf("turn-1"))
    expect(outside.metadata.loaded ?? []).toEqual([])
    // Reading the instruction file did not use up the turn's claim on it.
    const x = await runTool(read, { filePath: "sub/x.ts" }, contextOf("turn-1"))
    expect(x.metadata.loaded).toEqual([nested])
  })

  it("attaches a file once when two reads of one turn run together", async () => {
    await tree.put("repo/pkg/sub/AGENTS.md", "Sub rules.")
    const { read } = setup()
    const results = await Promise.all([
      runTool(read, { filePath: "sub/x.ts" }, contextOf("turn-1")),
      runTool(read, { filePath: "sub/y.ts" }, contextOf("turn-1")),
    ])
    expect(
      results.map((result) => (result.metadata.loaded as string[] | undefined)?.length ?? 0).sort(),
    ).toEqual([0, 1])
  })

  it("does not attach a file the system prompt of the session's turn already holds", async () => {
    await tree.put("repo/pkg/sub/AGENTS.md", "Sub rules.")
    const { files, read } = setup({ extra: ["sub/AGENTS.md"] })
    await files.source(sourceInput(tree.directory))
    const result = await runTool(read, { filePath: "sub/x.ts" }, contextOf("turn-1"))
    expect(result.metadata.loaded ?? []).toEqual([])
    // Another session's prompt was not built with it.
    const other = await runTool(read, { filePath: "sub/x.ts" }, contextOf("turn-1", "other-session"))
    expect(other.metadata.loaded).toHaveLength(1)
  })

  it("cuts a nested file over the per-file cap", async () => {
    const nested = await tree.put("repo/pkg/sub/AGENTS.md", "n".repeat(3000))
    const { read } = setup({ maxFileBytes: 1024 })
    const result = await runTool(read, { filePath: "sub/x.ts" }, contextOf("turn-1"))
    expect(result.output).toContain(
      block(nested, `${"n".repeat(1024)}\n[cut at 1 KiB of 2.9 KiB: read the file for the rest]`),
    )
  })

  it("stays off with nested: false", async () => {
    await tree.put("repo/pkg/sub/AGENTS.md", "Sub rules.")
    const { read } = setup({ nested: false })
    const result = await runTool(read, { filePath: "sub/x.ts" }, contextOf("turn-1"))
    expect(result.output).not.toContain("<system-reminder>")
  })
})

describe("nested instruction files in a runtime", () => {
  it("attaches once per turn: the first read of sub/x.ts, not the second, again in the next turn", async () => {
    const nested = await tree.put("repo/pkg/sub/AGENTS.md", "Sub rules.")
    const { files, read } = setup()
    const { runtime } = createTestRuntime({
      directory: tree.directory,
      instructions: [files.source],
      tools: [read],
      turns: [
        [say.toolCall("read", { filePath: "sub/x.ts" })],
        [say.toolCall("read", { filePath: "sub/x.ts" })],
        [say.text("Read twice.")],
        [say.toolCall("read", { filePath: "sub/x.ts" })],
        [say.text("Read again.")],
      ],
    })
    const session = await runtime.session.create()
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "read" }] })
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "again" }] })
    const loaded = (await runtime.session.messages(session.id))
      .flatMap((message) => message.parts)
      .filter((part): part is MessageV2.ToolPart => part.type === "tool")
      .map((part) => (part.state.status === "completed" ? part.state.metadata.loaded : part.state.status))
    expect(loaded).toEqual([[nested], [], [nested]])
  })
})
