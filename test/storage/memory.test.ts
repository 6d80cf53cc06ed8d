import { describe, expect, it } from "vitest"
import { MemoryStorage, type MessageQuery, type StorageWrite } from "../../src/index.js"
import { storageConformance } from "../../src/testing/index.js"

describe("MemoryStorage", () => {
  storageConformance(() => new MemoryStorage(), { describe, it })
})

describe("storageConformance", () => {
  /** Runs the suite against `storage` and returns the names of the cases that failed. */
  async function failingCases(makeStorage: () => MemoryStorage): Promise<string[]> {
    const cases: { name: string; body: () => Promise<void> }[] = []
    storageConformance(makeStorage, {
      describe: (_name, body) => body(),
      it: (name, body) => cases.push({ name, body }),
    })
    const failed: string[] = []
    for (const { name, body } of cases) await body().catch(() => failed.push(name))
    return failed
  }

  it("passes a correct adapter", async () => {
    expect(await failingCases(() => new MemoryStorage())).toEqual([])
  })

  it("catches an adapter whose batches are not atomic", async () => {
    class PieceByPiece extends MemoryStorage {
      override async write(writes: readonly StorageWrite[]) {
        for (const write of writes) await super.write([write])
      }
    }
    expect(await failingCases(() => new PieceByPiece())).toEqual([
      "a batch that fails part way writes nothing",
      "a row that fails its schema is refused with an error naming it, and nothing is written",
      "refuses a side value that is not JSON, writing nothing",
      "refuses a session whose parent chain leads back to itself, writing nothing",
      "refuses a batch that is not an array of writes, writing nothing",
      "refuses a write of unknown type or with a missing or non-string key or ID, writing nothing",
      "refuses a row or value JSON cannot encode (a BigInt, a cycle), writing nothing",
    ])
  })

  it("catches an adapter that returns parts out of order", async () => {
    class Unordered extends MemoryStorage {
      override async listMessages(sessionID: string, query?: MessageQuery) {
        const messages = await super.listMessages(sessionID, query)
        return messages.map((message) => ({ ...message, parts: [...message.parts].reverse() }))
      }
    }
    expect(await failingCases(() => new Unordered())).toContain(
      "returns messages and parts in ID order, whatever the write order",
    )
  })
})
