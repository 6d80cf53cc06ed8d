import { describe, expect, it } from "vitest"
import { MemoryStorage, type StorageWrite } from "../../src/index.js"
import { createTestRuntime, say } from "../../src/testing/index.js"

describe("a step's usage", () => {
  it("lands on the message and the session's totals in one write, so a crash cannot split them", async () => {
    const storage = new MemoryStorage()
    const batches: StorageWrite[][] = []
    const write = storage.write.bind(storage)
    storage.write = async (batch) => {
      batches.push([...batch])
      return write(batch)
    }
    const { runtime } = createTestRuntime({
      storage,
      turns: [[say.text("Hi"), say.usage({ input: 1_000, output: 100 })]],
    })
    const session = await runtime.session.create()
    const answer = await runtime.session.prompt({
      sessionID: session.id,
      parts: [{ type: "text", text: "q" }],
    })

    const expected = 0.0045 // 1,000 × $3 + 100 × $15, per million
    const firstCostly = (type: StorageWrite["type"]) =>
      batches.findIndex((batch) =>
        batch.some(
          (write) => write.type === type && "info" in write && "cost" in write.info && write.info.cost > 0,
        ),
      )
    const batch = batches[firstCostly("session.put")]
    expect(firstCostly("message.put")).toBe(firstCostly("session.put"))
    expect(batch).toContainEqual(
      expect.objectContaining({ type: "session.put", info: expect.objectContaining({ cost: expected }) }),
    )
    expect(batch).toContainEqual(
      expect.objectContaining({
        type: "message.put",
        info: expect.objectContaining({ id: answer.info.id, cost: expected }),
      }),
    )
  })
})
