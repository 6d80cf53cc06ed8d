import { describe, expect, it } from "vitest"
import { z } from "zod"
import { type InstructionSourceInput, Tool } from "../../src/index.js"
import { createTestRuntime, say } from "../../src/testing/index.js"
import type { CallOptions } from "../../src/testing/script.js"

const systemOf = (call: CallOptions | undefined) =>
  (call?.prompt ?? []).flatMap((message) => (message.role === "system" ? [message.content] : [])).join("\n\n")

const hi = (text: string) => [{ type: "text" as const, text }]

describe("instructions from a source, once per turn", () => {
  it("asks each source at a turn's start and keeps its answer for every step of the turn", async () => {
    const seen: InstructionSourceInput[] = []
    let version = 1
    const turnIDs: (string | undefined)[] = []
    const touch = Tool.define("touch", {
      description: "Changes the project's instructions",
      parameters: z.object({}),
      async execute(_args, context) {
        turnIDs.push(context.turnID)
        version++
        return "changed"
      },
    })
    const { runtime, model } = createTestRuntime({
      tools: [touch],
      instructions: [
        "Fixed text.",
        (input) => {
          seen.push(input)
          return [`Project rules v${version}.`]
        },
        "Last text.",
      ],
      turns: [[say.toolCall("touch", {})], [say.text("Done")], [say.text("Again")]],
    })
    const session = await runtime.session.create()
    const first = await runtime.session.prompt({ sessionID: session.id, parts: hi("one") })
    expect(systemOf(model.calls[0])).toContain("Fixed text.\n\nProject rules v1.\n\nLast text.")
    // The tool changed what the source would say; the turn's second step still sends v1.
    expect(systemOf(model.calls[1])).toBe(systemOf(model.calls[0]))
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatchObject({ sessionID: session.id, directory: session.directory, agent: "build" })
    expect(seen[0]?.signal).toBeInstanceOf(AbortSignal)
    expect(turnIDs).toEqual([first.info.role === "assistant" ? first.info.parentID : "not an answer"])

    await runtime.session.prompt({ sessionID: session.id, parts: hi("two") })
    expect(seen).toHaveLength(2)
    expect(systemOf(model.calls[2])).toContain("Project rules v2.")
  })

  it("fails the turn when a source fails, and asks it again at the next turn", async () => {
    let calls = 0
    const { runtime, model } = createTestRuntime({
      instructions: [
        async () => {
          calls++
          if (calls === 1) throw new Error("AGENTS.md unreadable")
          return ["Recovered rules."]
        },
      ],
      turns: [[say.text("Answer")]],
    })
    const session = await runtime.session.create()
    await expect(runtime.session.prompt({ sessionID: session.id, parts: hi("one") })).rejects.toThrow(
      "AGENTS.md unreadable",
    )
    expect(model.calls).toHaveLength(0)
    await runtime.session.prompt({ sessionID: session.id, parts: hi("two") })
    expect(calls).toBe(2)
    expect(systemOf(model.calls[0])).toContain("Recovered rules.")
  })

  it("refuses an entry that is neither text nor a function", () => {
    expect(() => createTestRuntime({ instructions: [42 as never] })).toThrow(/instructions/)
  })
})
