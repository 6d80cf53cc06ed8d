import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import {
  Agent,
  createRuntime,
  InvalidInputError,
  MemoryStorage,
  type MessageQuery,
  type MessageV2,
  type Runtime,
} from "../../src/index.js"
import { HISTORY_PAGE } from "../../src/loop/run.js"
import { SqliteStorage } from "../../src/storage/sqlite/index.js"
import { createTestRuntime, say, type Turn, testModelInfo } from "../../src/testing/index.js"

let directory: string
let file: string

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), "agentloop-compaction-"))
  file = join(directory, "agentloop.db")
})

afterEach(() => {
  rmSync(directory, { recursive: true, force: true })
})

const textOf = (message: MessageV2.WithParts) =>
  message.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("")
const ref = { providerID: testModelInfo.providerID, modelID: testModelInfo.id }

/** A session on SQLite with one answered turn, left as a crash would leave it after `leave` ran. */
async function crashed(leave: (runtime: Runtime, sessionID: string) => Promise<void>) {
  const { runtime } = createTestRuntime({
    storage: new SqliteStorage(file),
    turns: [[say.text("ALPHA answer")]],
  })
  const session = await runtime.session.create({ title: "Fixed title" })
  await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "ALPHA question" }] })
  await leave(runtime, session.id)
  await runtime.close()
  return session.id
}

async function storeRequest(runtime: Runtime, sessionID: string, auto: boolean) {
  const id = await runtime.session.newMessageID(sessionID)
  const request = {
    info: { id, sessionID, role: "user" as const, time: { created: Date.now() }, agent: "build", model: ref },
    parts: [
      { id: runtime.session.newPartID(id), sessionID, messageID: id, type: "compaction" as const, auto },
    ],
  }
  await runtime.session.saveMessage(request)
  return request
}

async function storeSummary(runtime: Runtime, sessionID: string, parentID: string, finished: boolean) {
  const id = await runtime.session.newMessageID(sessionID)
  await runtime.session.saveMessage({
    info: {
      id,
      sessionID,
      role: "assistant",
      time: { created: Date.now() },
      parentID,
      agent: "compaction",
      providerID: ref.providerID,
      modelID: ref.modelID,
      path: { cwd: directory, root: directory },
      cost: 0,
      tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
      summary: true,
      ...(finished ? { finish: "stop" } : {}),
    },
    parts: [
      { id: runtime.session.newPartID(id), sessionID, messageID: id, type: "text", text: "HALF-SUMMARY" },
    ],
  })
}

function reopen(turns: Turn[]) {
  return createTestRuntime({ storage: new SqliteStorage(file), turns })
}

describe("compaction across a crash (SQLite)", () => {
  it("runs a stored compaction request that never got its summary", async () => {
    const sessionID = await crashed(async (runtime, id) => {
      await storeRequest(runtime, id, true)
    })
    const { runtime, model } = reopen([[say.text("SUMMARY-ONE")], [say.text("BRAVO answer")]])
    const answer = await runtime.session.loop(sessionID)
    expect(textOf(answer)).toBe("BRAVO answer")
    expect(model.calls).toHaveLength(2)
    const stored = await runtime.session.messages(sessionID)
    expect(stored.map((message) => textOf(message))).toEqual([
      "ALPHA question",
      "ALPHA answer",
      "",
      "SUMMARY-ONE",
      "ALPHA question",
      "BRAVO answer",
    ])
    await runtime.close()
  })

  it("writes the summary again when a crash cut it off, dropping the half-written one", async () => {
    const sessionID = await crashed(async (runtime, id) => {
      const request = await storeRequest(runtime, id, false)
      await storeSummary(runtime, id, request.info.id, false)
    })
    const { runtime, model } = reopen([[say.text("SUMMARY-ONE")]])
    const summary = await runtime.session.loop(sessionID)
    expect(summary.info).toMatchObject({ summary: true, finish: "stop" })
    expect(textOf(summary)).toBe("SUMMARY-ONE")
    expect(model.calls).toHaveLength(1)
    const stored = await runtime.session.messages(sessionID)
    expect(stored.some((message) => textOf(message) === "HALF-SUMMARY")).toBe(false)
    await runtime.close()
  })

  it("resumes an automatic compaction whose resume message a crash prevented", async () => {
    const sessionID = await crashed(async (runtime, id) => {
      // The request keeps no tail: the summary covers the whole turn, so its question is replayed.
      const request = await storeRequest(runtime, id, true)
      await storeSummary(runtime, id, request.info.id, true)
    })
    const { runtime, model } = reopen([[say.text("BRAVO answer")]])
    const answer = await runtime.session.loop(sessionID)
    expect(textOf(answer)).toBe("BRAVO answer")
    expect(model.calls).toHaveLength(1)
    const prompt = JSON.stringify(model.calls[0]?.prompt)
    expect(prompt).toContain("HALF-SUMMARY")
    expect(prompt).not.toContain("ALPHA answer")
    await runtime.close()
  })
})

describe("compaction and the loop", () => {
  it("answers a prompt that joined while the summary was being written", async () => {
    const { runtime } = createTestRuntime({
      compaction: { tailTurns: 0 },
      turns: [
        [say.text("ALPHA answer")],
        [say.delay(20), say.text("SUMMARY-ONE")],
        [say.text("BRAVO answer")],
      ],
    })
    const session = await runtime.session.create({ title: "Fixed title" })
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "ALPHA question" }] })
    const compacting = new Promise<void>((resolve) =>
      runtime.events.on("message.updated", (event) => {
        if (event.properties.info.role === "assistant" && event.properties.info.summary) resolve()
      }),
    )
    const compacted = runtime.session.compact({ sessionID: session.id })
    await compacting
    const joined = runtime.session.prompt({
      sessionID: session.id,
      parts: [{ type: "text", text: "BRAVO question" }],
    })
    const [summary, answer] = await Promise.all([compacted, joined])
    // Both callers share the run, which ends with the answer to the prompt that joined.
    expect(textOf(answer!)).toBe("BRAVO answer")
    expect(summary).toEqual(answer)
    const stored = await runtime.session.messages(session.id)
    expect(stored.at(-1)?.info.id).toBe(answer!.info.id)
  })

  it("stops on cancel during the summary; the next prompt compacts again", async () => {
    // Cancelled once the summary's request reached the model: one cancelled earlier is never sent.
    let called!: () => void
    const summaryCalled = new Promise<void>((resolve) => {
      called = resolve
    })
    const { runtime, model } = createTestRuntime({
      compaction: { tailTurns: 0 },
      turns: [
        [say.text("ALPHA answer"), say.usage({ input: 170_000 })],
        () => {
          called()
          return [say.delay(5_000), say.text("never")]
        },
        [say.text("SUMMARY-ONE")],
        [say.text("CHARLIE answer")],
      ],
    })
    const session = await runtime.session.create({ title: "Fixed title" })
    const ask = (text: string) =>
      runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text }] })
    await ask("ALPHA question")
    const cancelled = ask("BRAVO question")
    await summaryCalled
    runtime.session.cancel(session.id)
    const stopped = await cancelled
    expect(stopped.info).toMatchObject({ summary: true, error: { name: "AbortedError" } })
    expect(runtime.session.status(session.id)).toEqual({ type: "idle" })

    // The aborted summary and its request are left out; the next prompt compacts again.
    const answer = await ask("CHARLIE question")
    expect(textOf(answer)).toBe("CHARLIE answer")
    expect(model.calls).toHaveLength(4)
    expect(JSON.stringify(model.calls[2]?.prompt)).not.toContain("What did we do so far?")
    const last = JSON.stringify(model.calls[3]?.prompt)
    expect(last).toContain("SUMMARY-ONE")
    expect(last).toContain("CHARLIE question")
    expect(last).not.toContain("ALPHA answer")
  })

  it("leaves out a compaction cancelled before its model call, with its request", async () => {
    let blocked!: () => void
    const inHook = new Promise<void>((resolve) => {
      blocked = resolve
    })
    const { runtime, model } = createTestRuntime({
      turns: [[say.text("hello answer")], [say.text("next answer")]],
      hooks: {
        // The summary's settings wait for a host that never answers: only the cancel ends it.
        "chat.system": ({ agent, abort }) => {
          if (agent.name !== "compaction") return
          blocked()
          return new Promise<void>((resolve) => abort.addEventListener("abort", () => resolve()))
        },
      },
    })
    const session = await runtime.session.create({ title: "Fixed title" })
    const ask = (text: string) =>
      runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text }] })
    await ask("hello")
    const compacting = runtime.session.compact({ sessionID: session.id })
    await inHook
    await runtime.session.cancel(session.id)
    const stopped = await compacting
    expect(stopped.info).toMatchObject({ summary: true, error: { name: "AbortedError" } })

    const answer = await ask("next question")
    expect(textOf(answer)).toBe("next answer")
    expect(model.calls).toHaveLength(2)
    const sent = JSON.stringify(model.calls[1]?.prompt)
    expect(sent).toContain("hello")
    expect(sent).toContain("next question")
    expect(sent).not.toContain("What did we do so far?")
  })

  it("keeps one turn less when the tail would keep everything, and continues with a note", async () => {
    const { runtime, model } = createTestRuntime({
      turns: [
        [say.text("ALPHA answer")],
        // No read tool is registered: the call fails as unavailable, which is all this turn needs.
        [say.toolCall("read", { path: "a.ts" }, { unavailable: true }), say.usage({ input: 170_000 })],
        [say.text("SUMMARY-ONE")],
        [say.text("BRAVO answer")],
      ],
    })
    const session = await runtime.session.create({ title: "Fixed title" })
    const ask = (text: string) =>
      runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text }] })
    await ask("ALPHA question")
    const answer = await ask("BRAVO question")
    expect(textOf(answer)).toBe("BRAVO answer")
    expect(model.calls).toHaveLength(4)
    // Both turns fit the tail, but then nothing would be summarised: the older one is.
    expect(JSON.stringify(model.calls[2]?.prompt)).toContain("ALPHA question")
    expect(JSON.stringify(model.calls[2]?.prompt)).not.toContain("BRAVO question")
    const stored = await runtime.session.messages(session.id)
    const resume = stored.at(-2)!
    expect(resume.parts).toMatchObject([
      { type: "text", text: Agent.Prompt.COMPACTION_CONTINUE, synthetic: true },
    ])
    const last = JSON.stringify(model.calls[3]?.prompt)
    expect(last).toContain("BRAVO question")
    expect(last).not.toContain("ALPHA")
  })

  it("rejects malformed compaction options", () => {
    expect(() => createRuntime({ compaction: { tailTurns: -1 } })).toThrow(InvalidInputError)
    expect(() => createRuntime({ compaction: { everything: true } as never })).toThrow(InvalidInputError)
  })

  it("starts a run from the latest compaction when the newest page holds it, else from the start", async () => {
    class CountingStorage extends MemoryStorage {
      readonly loads: (number | "all")[] = []
      override async listMessages(sessionID: string, query?: MessageQuery) {
        const messages = await super.listMessages(sessionID, query)
        this.loads.push(query?.limit === undefined ? "all" : messages.length)
        return messages
      }
    }
    const storage = new CountingStorage()
    const { runtime, model } = createTestRuntime({
      storage,
      compaction: { tailTurns: 1 },
      turns: [[say.text("ALPHA answer")], [say.text("SUMMARY-ONE")], [say.text("BRAVO answer")]],
    })
    const session = await runtime.session.create({ title: "Fixed title" })
    const note = (text: string) =>
      runtime.session.prompt({ sessionID: session.id, noReply: true, parts: [{ type: "text", text }] })
    for (let index = 0; index < HISTORY_PAGE + 20; index++) await note(`OLD-NOTE ${index}`)
    const ask = (text: string) =>
      runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text }] })

    storage.loads.length = 0
    await ask("ALPHA question")
    // No compaction yet: the page did not hold one, so the whole session was read.
    expect(storage.loads.filter((load) => load !== 1)).toEqual([HISTORY_PAGE, "all"])

    await runtime.session.compact({ sessionID: session.id })
    storage.loads.length = 0
    const answer = await ask("BRAVO question")
    expect(textOf(answer)).toBe("BRAVO answer")
    // The prompt looks back past the summary for the model the session last used (one page of
    // 50), then the run reads one page of history.
    expect(storage.loads.filter((load) => load !== 1)).toEqual([50, HISTORY_PAGE])
    const prompt = JSON.stringify(model.calls[2]?.prompt)
    expect(prompt).toContain("SUMMARY-ONE")
    expect(prompt).toContain("ALPHA answer")
    expect(prompt).not.toContain("OLD-NOTE")
  })
})
