import { describe, expect, it } from "vitest"
import { z } from "zod"
import { InvalidInputError } from "../../src/error/invalid-input.js"
import { type MessageV2, type RuntimeOptions, Tool } from "../../src/index.js"
import { fenceSessions } from "../../src/session/writers.js"
import { type CheckedWrite, checkedWriteOf, writeChecked } from "../../src/storage/checked-write.js"
import { MemoryStorage } from "../../src/storage/memory.js"
import type { Storage, StorageWrite } from "../../src/storage/port.js"
import { SqliteStorage } from "../../src/storage/sqlite/sqlite-storage.js"
import { createTestRuntime, say } from "../../src/testing/index.js"

const session = {
  id: "ses_01JD0000000000000000000000",
  slug: "s",
  directory: "/tmp",
  title: "t",
  version: "0",
  time: { created: 1, updated: 1 },
  cost: 0,
  tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
}

describe("rows the runtime built (the checked write path)", () => {
  it("skips the schema parse of a checked row only, and leaves the row as it was", async () => {
    const storage = new MemoryStorage()
    // Not a session row at all: only a checked row gets past without its schema parse.
    const odd = { ...session, title: 5 }
    await expect(storage.write([{ type: "session.put", info: odd as never }])).rejects.toBeInstanceOf(
      InvalidInputError,
    )
    const row = { ...odd }
    await storage[writeChecked]([{ write: { type: "session.put", info: row as never }, checked: true }])
    expect(Object.getOwnPropertySymbols(row)).toEqual([])
    expect((await storage.getSession(session.id))?.title).toBe(5)
    // The same object again, unflagged: parsed like any other.
    await expect(
      storage[writeChecked]([{ write: { type: "session.put", info: row as never }, checked: false }]),
    ).rejects.toBeInstanceOf(InvalidInputError)
    await expect(storage.write([{ type: "session.put", info: row as never }])).rejects.toBeInstanceOf(
      InvalidInputError,
    )
  })

  it("is taken only where the storage's write is the adapter's own", () => {
    class Overriding extends MemoryStorage {
      override async write(writes: readonly StorageWrite[]) {
        return super.write(writes)
      }
    }
    const patched = new MemoryStorage()
    patched.write = async () => undefined
    const plain = new MemoryStorage()
    const wrapped = new Proxy(plain, {
      get: (target, name) => {
        const value = Reflect.get(target, name)
        return typeof value === "function" && typeof name === "string" ? value.bind(target) : value
      },
    })
    const host: Storage = { ...plain, write: async () => undefined } as never
    expect(checkedWriteOf(plain)).toBeDefined()
    expect(checkedWriteOf(new SqliteStorage(":memory:"))).toBeDefined()
    expect(checkedWriteOf(fenceSessions(plain).storage)).toBeDefined()
    for (const storage of [new Overriding(), patched, wrapped, host])
      expect(checkedWriteOf(storage)).toBeUndefined()
  })

  it("still refuses a checked row JSON cannot encode", async () => {
    const storage = new MemoryStorage()
    const row = { ...session, metadata: { size: 1n } }
    await expect(
      storage[writeChecked]([{ write: { type: "session.put", info: row as never }, checked: true }]),
    ).rejects.toBeInstanceOf(InvalidInputError)
    expect(await storage.getSession(session.id)).toBeUndefined()
  })
})

describe("the processor's rows", () => {
  it("reach events and callers without a mark: a host's changed copy is parsed again", async () => {
    const lookup = Tool.define("lookup", {
      description: "Looks a record up",
      parameters: z.object({ n: z.number() }),
      execute: async ({ n }) => `record ${n}`,
    })
    const { runtime } = createTestRuntime({
      tools: [lookup],
      turns: [[say.toolCall("lookup", { n: 1 })], [say.text("Found it.")]],
    })
    const parts: MessageV2.Part[] = []
    const messages: MessageV2.Info[] = []
    runtime.events.on("message.part.updated", (event) => parts.push(event.properties.part))
    runtime.events.on("message.updated", (event) => messages.push(event.properties.info))
    const session = await runtime.session.create()
    const turn = await runtime.session.prompt({
      sessionID: session.id,
      parts: [{ type: "text", text: "go" }],
    })
    expect(turn.text).toBe("Found it.")
    const seen = [
      ...parts,
      ...messages,
      turn.info,
      ...turn.parts,
      ...turn.steps.flatMap((step) => step.parts),
    ]
    expect(seen.filter((row) => Object.getOwnPropertySymbols(row).length > 0)).toEqual([])
    expect(new Set(parts.map((part) => part.type))).toEqual(
      new Set(["step-start", "tool", "step-finish", "text"]),
    )

    const text = parts.find((part) => part.type === "text")!
    await expect(runtime.session.updatePart({ ...text, text: 5 } as never)).rejects.toBeInstanceOf(
      InvalidInputError,
    )
    await runtime.close()
  })
})

/** A MemoryStorage that notes, for each tool part written, its status and whether it came checked. */
class CheckRecordingStorage extends MemoryStorage {
  readonly toolWrites: { status: string; built: boolean }[] = []
  override write(writes: readonly StorageWrite[]): Promise<void> {
    for (const write of writes) this.#note(write, false)
    return super.write(writes)
  }
  override [writeChecked](writes: readonly CheckedWrite[]): Promise<void> {
    for (const { write, checked } of writes) this.#note(write, checked)
    return super[writeChecked](writes)
  }
  #note(write: StorageWrite, built: boolean) {
    if (write.type === "part.put" && write.part.type === "tool")
      this.toolWrites.push({ status: write.part.state.status, built })
  }
}

/**
 * One prompt whose tool returns `result`: the tool writes storage saw, the turn's outcome and
 * the completed call's stored metadata.
 */
async function toolTurn(result: unknown, hooks?: RuntimeOptions["hooks"]) {
  const storage = new CheckRecordingStorage()
  const lookup = Tool.define("lookup", {
    description: "Looks a record up",
    parameters: z.object({ n: z.number() }),
    execute: async () => result as string,
  })
  const { runtime } = createTestRuntime({
    storage,
    tools: [lookup],
    turns: [[say.toolCall("lookup", { n: 1 })], [say.text("Found it.")]],
    ...(hooks ? { hooks } : {}),
  })
  const session = await runtime.session.create()
  const outcome = await runtime.session
    .prompt({ sessionID: session.id, parts: [{ type: "text", text: "go" }] })
    .then((turn) => ({ text: turn.text }))
    .catch((error: unknown) => ({ error }))
  const [, answer] = await storage.listMessages(session.id)
  const tool = answer?.parts.find((part) => part.type === "tool")
  const stored = tool?.state.status === "completed" ? tool.state.metadata : undefined
  await runtime.close()
  return { writes: storage.toolWrites, outcome, stored }
}

describe("a completed tool call's part", () => {
  it("is checked when its result has text, a title and plain metadata", async () => {
    const { writes, outcome } = await toolTurn({ title: "record 1", output: "found", metadata: { n: 1 } })
    expect(outcome).toEqual({ text: "Found it." })
    expect(writes.filter((write) => write.status === "completed")).toEqual([
      { status: "completed", built: true },
    ])
  })

  it("is parsed when its metadata is not a plain object, and stores what it stored before", async () => {
    class Meta {
      n = 1
    }
    // A symbol key is dropped by the copy the processor writes, so that one needs no parse.
    const cases: [object, boolean][] = [
      [new Meta(), false],
      [{ n: 1, [Symbol("s")]: 2 }, true],
    ]
    for (const [metadata, built] of cases) {
      const { writes, outcome, stored } = await toolTurn({ title: "t", output: "found", metadata })
      expect(writes.find((write) => write.status === "completed")?.built).toBe(built)
      expect(outcome).toEqual({ text: "Found it." })
      // The copy written is plain: the class is gone, and so is the symbol key.
      expect(stored).toEqual({ n: 1 })
    }
  })

  it("is parsed, and refused as before, when a tool.after hook makes its metadata a list", async () => {
    const { writes, outcome } = await toolTurn("found", {
      "tool.after": async (_input, output) => {
        output.metadata = [1] as never
      },
    })
    expect(writes.find((write) => write.status === "completed")?.built).toBe(false)
    expect(InvalidInputError.isInstance((outcome as { error?: unknown }).error)).toBe(true)
  })
})
