import { describe, expect, it } from "vitest"
import { MemoryStorage, type MessageQuery, type MessageV2 } from "../../src/index.js"
import { HISTORY_PAGE, loadHistory } from "../../src/loop/run.js"
import { createBuilders } from "../../src/testing/index.js"
import { historyBuilder } from "../compaction/history.js"

class CountingStorage extends MemoryStorage {
  readonly queries: (MessageQuery | undefined)[] = []
  override listMessages(sessionID: string, query?: MessageQuery) {
    this.queries.push(query)
    return super.listMessages(sessionID, query)
  }
}

async function stored(messages: MessageV2.WithParts[]) {
  const storage = new CountingStorage()
  const sessionID = messages[0]!.info.sessionID
  await storage.write([{ type: "session.put", info: createBuilders().session({ id: sessionID }) }])
  for (const { info, parts } of messages)
    await storage.write([
      { type: "message.put", info },
      ...parts.map((part) => ({ type: "part.put" as const, part })),
    ])
  return { storage, sessionID }
}

function notes(h: ReturnType<typeof historyBuilder>, count: number) {
  for (let index = 0; index < count; index++) h.user(`note ${index}`)
}

describe("loadHistory", () => {
  it("reads a short session in one query", async () => {
    const h = historyBuilder()
    notes(h, 10)
    const { storage, sessionID } = await stored(h.messages)
    expect(await loadHistory(storage, sessionID)).toHaveLength(10)
    expect(storage.queries).toEqual([{ limit: HISTORY_PAGE }])
  })

  it("reads a long session whole when the newest page holds no compaction", async () => {
    const h = historyBuilder()
    notes(h, HISTORY_PAGE + 5)
    const { storage, sessionID } = await stored(h.messages)
    expect(await loadHistory(storage, sessionID)).toHaveLength(HISTORY_PAGE + 5)
    expect(storage.queries).toEqual([{ limit: HISTORY_PAGE }, undefined])
  })

  it("reads only the newest page when it holds the latest compaction and its whole tail", async () => {
    const h = historyBuilder()
    notes(h, HISTORY_PAGE)
    const tail = h.user("kept")
    h.compaction(tail.info.id)
    h.assistant("summary", { summary: true })
    const { storage, sessionID } = await stored(h.messages)
    const history = await loadHistory(storage, sessionID)
    expect(history).toHaveLength(HISTORY_PAGE)
    expect(storage.queries).toEqual([{ limit: HISTORY_PAGE }])
  })

  it("reads everything when the tail starts before the newest page, or the summary failed", async () => {
    const h = historyBuilder()
    const tail = h.user("kept")
    notes(h, HISTORY_PAGE)
    h.compaction(tail.info.id)
    h.assistant("summary", { summary: true })
    const long = await stored(h.messages)
    expect(await loadHistory(long.storage, long.sessionID)).toHaveLength(HISTORY_PAGE + 3)

    const failed = historyBuilder()
    notes(failed, HISTORY_PAGE)
    failed.compaction()
    failed.assistant("", { summary: true, error: true })
    const broken = await stored(failed.messages)
    expect(await loadHistory(broken.storage, broken.sessionID)).toHaveLength(HISTORY_PAGE + 2)
    expect(broken.storage.queries).toEqual([{ limit: HISTORY_PAGE }, undefined])
  })
})
