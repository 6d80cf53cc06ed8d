import { describe, expect, it } from "vitest"
import { z } from "zod"
import { InvalidInputError } from "../../src/error/invalid-input.js"
import { type MessageV2, Tool } from "../../src/index.js"
import { isBuilt, markBuilt, writeMarked } from "../../src/storage/built-row.js"
import { MemoryStorage } from "../../src/storage/memory.js"
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

describe("rows the runtime built (markBuilt)", () => {
  it("skips the schema parse of a marked row only, while the write runs", async () => {
    const storage = new MemoryStorage()
    // Not a session row at all: only a marked row gets past without its schema parse.
    const odd = { ...session, title: 5 }
    await expect(storage.write([{ type: "session.put", info: odd as never }])).rejects.toBeInstanceOf(
      InvalidInputError,
    )
    const marked = markBuilt({ ...odd })
    await writeMarked([marked], () => storage.write([{ type: "session.put", info: marked as never }]))
    expect(isBuilt(marked)).toBe(false)
    expect((await storage.getSession(session.id))?.title).toBe(5)
    // The same object again, now unmarked: parsed like any other.
    await expect(storage.write([{ type: "session.put", info: marked as never }])).rejects.toBeInstanceOf(
      InvalidInputError,
    )
  })

  it("takes the marks off even when the write throws at once", async () => {
    const row = markBuilt({ ...session })
    expect(() =>
      writeMarked([row], () => {
        throw new Error("refused")
      }),
    ).toThrow("refused")
    expect(isBuilt(row)).toBe(false)
  })

  it("still refuses a marked row JSON cannot encode", async () => {
    const storage = new MemoryStorage()
    const row = markBuilt({ ...session, metadata: { size: 1n } })
    await expect(
      writeMarked([row], () => storage.write([{ type: "session.put", info: row as never }])),
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
