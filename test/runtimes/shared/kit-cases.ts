// The testing kit (agentloop-sdk/testing) as a user's tests use it under Bun and Deno: a
// scripted-model test of an agent, and the Storage conformance suite on SqliteStorage over a
// file, through the runtime's own SQLite. Registered on whichever describe/it the runtime's
// runner offers (bun:test under Bun, mini-test.ts under Deno).
import { deepStrictEqual, ok, strictEqual } from "node:assert/strict"
import { mkdtempSync } from "node:fs"
import { join } from "node:path"
import { MessageV2, Tool } from "agentloop-sdk"
import { SqliteStorage } from "agentloop-sdk/storage/sqlite"
import {
  createTestRuntime,
  say,
  storageConformance,
  type TestFramework,
  turnText,
} from "agentloop-sdk/testing"
import { z } from "zod"

const weather = Tool.define("weather", {
  description: "Current weather for a city",
  parameters: z.object({ city: z.string() }),
  async execute({ city }) {
    return { title: city, output: `${city}: 21°C, sunny`, metadata: { celsius: 21 } }
  },
})

/** Declares the kit's cases on `framework`. */
export function kitCases(framework: TestFramework): void {
  const { describe, it } = framework
  describe("a scripted-model test of an agent", () => {
    it("answers with what the weather tool found, and sends the model its result", async () => {
      const { runtime, model, verify } = createTestRuntime({
        tools: [weather],
        turns: [
          [say.toolCall("weather", { city: "Lisbon" }), say.usage({ input: 1_000, output: 50 })],
          [say.text("21°C and sunny in Lisbon."), say.usage({ input: 1_100, output: 10 })],
        ],
      })
      const session = await runtime.session.create()
      const answer = MessageV2.throwIfFailed(
        await runtime.session.prompt({
          sessionID: session.id,
          parts: [{ type: "text", text: "What's the weather in Lisbon?" }],
        }),
      )
      strictEqual(turnText(answer), "21°C and sunny in Lisbon.")
      strictEqual(answer.info.cost, 0.00345)
      ok(JSON.stringify(model.calls[1]?.prompt).includes("Lisbon: 21°C, sunny"))
      const tool = (await runtime.session.messages(session.id))
        .flatMap((message) => message.parts)
        .find((part) => part.type === "tool")
      deepStrictEqual(tool?.type === "tool" && tool.state.status, "completed")
      verify()
      await runtime.close()
    })
  })

  // In the check's project folder, which the check removes.
  const directory = mkdtempSync(join(process.cwd(), "kit-"))
  let files = 0
  storageConformance(() => {
    const storage = new SqliteStorage(join(directory, `conformance-${++files}.db`))
    // The point of running here: the runtime's own SQLite, no native build.
    strictEqual(storage.driver, "node:sqlite")
    return storage
  }, framework)
}
