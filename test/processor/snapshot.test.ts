import { describe, expect, it } from "vitest"
import { z } from "zod"
import { type MessageV2, SessionProcessor, type Snapshot, Tool } from "../../src/index.js"
import { say, scriptedModel } from "../../src/testing/index.js"
import { fakeSnapshot } from "../snapshot/fake-snapshot.js"
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
      diff: async () => [],
      restore: async () => undefined,
      revert: async () => undefined,
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
      snapshot: {
        ...fakeSnapshot().snapshot,
        track: async () => "same",
        patch: async (hash) => ({ hash, files: [] }),
      },
    })
    await processor.process({ messages: user("look") })
    expect((await setup.stored()).parts.map((part) => part.type)).toEqual([
      "step-start",
      "text",
      "step-finish",
    ])
  })

  it.each([
    ["the provider's spec", SessionProcessor.createProviderStream()],
    ["streamText", SessionProcessor.streamTextModel],
  ])(
    "runs no tool of a step before the step's starting snapshot is recorded, calling %s (snapshot-tool-race)",
    async (_, stream) => {
      const setup = await turnSetup([])
      // The tracker answers only after many turns of the event loop; the call arrives at once.
      const { snapshot, files } = fakeSnapshot({ delay: 50 })
      files.set("a.txt", "old")
      const write = Tool.define("write", {
        description: "Writes a.txt",
        parameters: z.object({ text: z.string() }),
        async execute({ text }) {
          files.set("a.txt", text)
          return { title: "a.txt", output: "written", metadata: {} }
        },
      })
      const processor = SessionProcessor.create({
        runtime: setup.runtime,
        assistantMessage: setup.assistant,
        model: { language: scriptedModel([[say.toolCall("write", { text: "new" })]]), info: modelInfo },
        abort: setup.abort.signal,
        snapshot,
        stream,
      })
      await processor.process({ messages: user("write it"), tools: [write] })
      const parts = (await setup.stored()).parts
      const start = parts.find((part) => part.type === "step-start")
      const patch = parts.find((part) => part.type === "patch")
      expect(files.get("a.txt")).toBe("new")
      expect(patch).toMatchObject({
        hash: start?.type === "step-start" ? start.snapshot : "none",
        files: ["a.txt"],
      })
      expect(await snapshot.diff((start as MessageV2.StepStartPart).snapshot!)).toMatchObject([
        { file: "a.txt", before: "old", after: "new" },
      ])
    },
  )
})
