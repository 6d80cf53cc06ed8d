import { mkdtemp, readFile, realpath, rm, stat, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import type { MessageV2 } from "../../src/index.js"
import { SqliteStorage } from "../../src/storage/sqlite/index.js"
import { createTestRuntime, say } from "../../src/testing/index.js"
import { codingTools } from "../../src/tools/index.js"
import { localOperations } from "../../src/tools/local-operations.js"

let directory: string
beforeEach(async () => {
  directory = await realpath(await mkdtemp(join(tmpdir(), "agentloop-protected-")))
})
afterEach(() => rm(directory, { recursive: true, force: true }))

describe("the file tools and the runtime's own data", () => {
  it("refuse the session database and its siblings, and leave them out of listings and searches", async () => {
    await writeFile(join(directory, "notes.txt"), "sessions are stored here\n")
    const storage = new SqliteStorage(join(directory, "sessions.db"))
    expect(storage.dataPaths.map((data) => data.path)).toEqual(
      ["", "-wal", "-shm", "-journal"].map((suffix) => `${join(directory, "sessions.db")}${suffix}`),
    )
    const { runtime } = createTestRuntime({
      directory,
      storage,
      tools: codingTools({ directory, operations: localOperations }),
      permission: [{ permission: "*", pattern: "*", action: "allow" }],
      turns: [
        [say.toolCall("read", { filePath: "sessions.db" })],
        [say.toolCall("write", { filePath: "sessions.db-journal", content: "not a journal" })],
        [say.toolCall("edit", { filePath: "sessions.db", oldString: "SQLite", newString: "pwned" })],
        [say.toolCall("write", { filePath: "notes.txt", content: "sessions are stored elsewhere\n" })],
        [say.toolCall("glob", { pattern: "*" })],
        [say.toolCall("list", {})],
        [say.toolCall("grep", { pattern: "sessions|SQLite" })],
        [say.text("done")],
      ],
    })
    const session = await runtime.session.create({ title: "local" })
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "go" }] })
    const results = (await runtime.session.messages(session.id))
      .flatMap((message) => message.parts)
      .filter((part): part is MessageV2.ToolPart => part.type === "tool")
      .map((part) => ({
        status: part.state.status,
        text:
          part.state.status === "completed"
            ? part.state.output
            : part.state.status === "error"
              ? part.state.error
              : "",
      }))
    await runtime.close()

    for (const refused of results.slice(0, 3)) {
      expect(refused.status).toBe("error")
      expect(refused.text).toMatch(/^Refused: sessions\.db(-journal)? holds the runtime's own data/)
    }
    expect(await stat(join(directory, "sessions.db-journal")).catch(() => undefined)).toBeUndefined()
    expect((await readFile(join(directory, "sessions.db"))).subarray(0, 6).toString()).toBe("SQLite")
    expect(await readFile(join(directory, "notes.txt"), "utf8")).toBe("sessions are stored elsewhere\n")
    expect(results.slice(3).map((result) => result.status)).toEqual(Array(4).fill("completed"))
    for (const listing of results.slice(4)) expect(listing.text).not.toContain("sessions.db")
    expect(results[4]!.text).toBe("notes.txt")
    expect(results[6]!.text).toContain("notes.txt")
  })
})
