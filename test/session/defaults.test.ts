import { describe, expect, it } from "vitest"
import { createProvider, createRuntime, InvalidInputError } from "../../src/index.js"
import { SqliteStorage } from "../../src/storage/sqlite/index.js"
import { createTestRuntime, say, scriptedModel, testModelInfo } from "../../src/testing/index.js"

describe("a session's agent, model and metadata", () => {
  it("are stored on create, kept by update and fork, and returned as given (SQLite round trip)", async () => {
    const storage = new SqliteStorage(":memory:", { coordinator: false })
    const { runtime } = createTestRuntime({ storage })
    const metadata = { userID: "u_42", tags: ["vip"], nested: { n: 1 } }
    const created = await runtime.session.create({ agent: "plan", metadata })
    expect(created).toMatchObject({ agent: "plan", metadata })
    expect(await runtime.session.get(created.id)).toEqual(created)
    const updated = await runtime.session.update(created.id, {
      metadata: { ticket: 7 },
      archived: 1_700_000_000_000,
    })
    expect(updated.metadata).toEqual({ ticket: 7 })
    expect(updated.time.archived).toBe(1_700_000_000_000)
    const fork = await runtime.session.fork({ sessionID: created.id })
    expect(fork).toMatchObject({ agent: "plan", metadata: { ticket: 7 } })
    await runtime.close()
  })

  it("refuses metadata that is not JSON, naming the field", async () => {
    const { runtime } = createTestRuntime()
    const error = await runtime.session
      .create({ metadata: { at: new Date() } as never })
      .catch((e: unknown) => e)
    expect(InvalidInputError.isInstance(error)).toBe(true)
    expect((error as InvalidInputError).data.issues[0]?.path).toMatch(/^metadata/)
  })

  it("a prompt naming no agent or model runs on the session's, until a turn has run on another model", async () => {
    const main = scriptedModel([[say.text("on the default model")]])
    const chosen = scriptedModel([[say.text("on the session's model")], [say.text("again on it")]], {
      modelId: "chosen",
    })
    const provider = createProvider({
      models: [
        { providerID: "scripted", modelID: "main", language: main, info: { ...testModelInfo, id: "main" } },
        {
          providerID: "scripted",
          modelID: "chosen",
          language: chosen,
          info: { ...testModelInfo, id: "chosen" },
        },
      ],
      default: { providerID: "scripted", modelID: "main" },
    })
    const runtime = createRuntime({
      provider,
      agents: { reviewer: { mode: "primary", prompt: "Review.", permission: [] } },
    })
    const session = await runtime.session.create({
      agent: "reviewer",
      model: { providerID: "scripted", modelID: "chosen" },
    })
    const first = await runtime.session.prompt({
      sessionID: session.id,
      parts: [{ type: "text", text: "hi" }],
    })
    expect(first.info).toMatchObject({ role: "assistant", agent: "reviewer", modelID: "chosen" })
    expect(first.text).toBe("on the session's model")
    const second = await runtime.session.prompt({
      sessionID: session.id,
      parts: [{ type: "text", text: "again" }],
    })
    expect(second.text).toBe("again on it")
    expect(main.calls).toHaveLength(0)
    await runtime.close()
  })
})
