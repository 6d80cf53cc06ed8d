import { describe, expect, it } from "vitest"
import { type MessageV2, SessionProcessor, type Snapshot } from "../../src/index.js"
import { say, scriptedModel } from "../../src/testing/index.js"
import { modelInfo, turnSetup, user } from "./helpers.js"

describe("SessionProcessor with a Snapshot port", () => {
  it("records a snapshot at each step's start and end, and a patch part for the files it changed", async () => {
    const setup = await turnSetup([])
    let state = 0
    const tracked: string[] = []
    const snapshot: Snapshot = {
      async track() {
        state++
        tracked.push(`tree-${state}`)
        return `tree-${state}`
      },
      async patch(hash) {
        return { hash: `patch-from-${hash}`, files: ["/work/src/a.ts"] }
      },
    }
    const processor = SessionProcessor.create({
      runtime: setup.runtime,
      assistantMessage: setup.assistant,
      model: { language: scriptedModel([[say.text("edited")]]), info: modelInfo },
      abort: setup.abort.signal,
      snapshot,
    })
    await processor.process({ messages: user("edit") })
    const parts = (await setup.stored()).parts
    expect(parts.map((part) => part.type)).toEqual(["step-start", "text", "step-finish", "patch"])
    expect((parts[0] as MessageV2.StepStartPart).snapshot).toBe("tree-1")
    expect((parts[2] as MessageV2.StepFinishPart).snapshot).toBe("tree-2")
    expect(parts[3]).toMatchObject({ type: "patch", hash: "patch-from-tree-1", files: ["/work/src/a.ts"] })
    expect(tracked).toEqual(["tree-1", "tree-2"])
  })

  it("writes no patch part when nothing changed", async () => {
    const setup = await turnSetup([])
    const processor = SessionProcessor.create({
      runtime: setup.runtime,
      assistantMessage: setup.assistant,
      model: { language: scriptedModel([[say.text("read only")]]), info: modelInfo },
      abort: setup.abort.signal,
      snapshot: { track: async () => "same", patch: async (hash) => ({ hash, files: [] }) },
    })
    await processor.process({ messages: user("look") })
    expect((await setup.stored()).parts.map((part) => part.type)).toEqual([
      "step-start",
      "text",
      "step-finish",
    ])
  })
})
