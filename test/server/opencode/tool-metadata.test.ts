import { mkdtempSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { createServer } from "../../../src/server/index.js"
import { createTestRuntime, say } from "../../../src/testing/index.js"
import { codingPreset } from "../../../src/tools/index.js"

const directories: string[] = []
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true })
})

describe("a write's tool part as OpenCode's terminal UI reads it", () => {
  it("carries metadata.diagnostics (the UI shows the written content only then) and OpenCode's filepath and exists", async () => {
    const directory = realpathSync(mkdtempSync(join(tmpdir(), "agentloop-write-part-")))
    directories.push(directory)
    const content = "export const answer = 42\n"
    const { runtime } = createTestRuntime({
      ...codingPreset({ directory }),
      turns: [[say.toolCall("write", { filePath: "answer.ts", content })], [say.text("Written.")]],
    })
    const app = createServer(runtime)
    const session = await runtime.session.create({})
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "write it" }] })
    const response = await app.request(`/session/${session.id}/message`)
    const messages = (await response.json()) as {
      parts: { type: string; tool?: string; state?: unknown }[]
    }[]
    const write = messages.flatMap((message) => message.parts).find((part) => part.tool === "write")
    expect(write?.state).toMatchObject({
      status: "completed",
      input: { filePath: "answer.ts", content },
      metadata: { diagnostics: {}, filepath: join(directory, "answer.ts"), exists: false },
    })
    await runtime.close()
  })
})
