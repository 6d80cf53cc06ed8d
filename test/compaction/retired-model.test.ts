import { describe, expect, it } from "vitest"
import { createProvider, createRuntime, MemoryStorage, type MessageV2 } from "../../src/index.js"
import { say, scriptedModel, testModelInfo } from "../../src/testing/index.js"

const info = (id: string) => ({ ...testModelInfo, id, name: id })
const ref = (modelID: string) => ({ providerID: "scripted", modelID })

describe("compact({ model })", () => {
  it("summarises with the model asked for when the history's model is no longer served", async () => {
    const storage = new MemoryStorage()
    const retired = scriptedModel([[say.text("ALPHA answer")]])
    const before = createRuntime({
      storage,
      provider: createProvider({
        models: [{ ...ref("retired"), language: retired, info: info("retired") }],
        default: ref("retired"),
      }),
      titles: false,
    })
    const session = await before.session.create()
    await before.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "ALPHA question" }] })

    // The same sessions, served later by a provider that dropped the model they used.
    const current = scriptedModel([[say.text("THE SUMMARY")]])
    const after = createRuntime({
      storage,
      provider: createProvider({
        models: [{ ...ref("current"), language: current, info: info("current") }],
        default: ref("current"),
      }),
      titles: false,
    })
    const summary = await after.session.compact({ sessionID: session.id, model: ref("current") })
    expect(summary.info).toMatchObject({ role: "assistant", summary: true, modelID: "current" })
    expect(summary.parts.filter((part): part is MessageV2.TextPart => part.type === "text")[0]?.text).toBe(
      "THE SUMMARY",
    )
    expect(current.calls).toHaveLength(1)
    await after.close()
    await before.close()
  })
})
