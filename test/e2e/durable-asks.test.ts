import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { createRuntime, type Permission } from "../../src/index.js"
import { SqliteStorage } from "../../src/storage/sqlite/index.js"

let directory: string
let file: string

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), "agentloop-asks-"))
  file = join(directory, "agentloop.db")
})

afterEach(() => {
  rmSync(directory, { recursive: true, force: true })
})

const ask: Permission.Rule[] = [{ permission: "*", pattern: "*", action: "ask" }]
const settle = () => new Promise((resolve) => setImmediate(resolve))

describe("permissions and questions on SQLite", () => {
  it("keeps always-approvals for a new runtime on the same file, for the session and its children", async () => {
    const first = createRuntime({ storage: new SqliteStorage(file) })
    const session = await first.session.create()
    const child = await first.session.create({ parentID: session.id })
    const other = await first.session.create()
    const requests: Permission.Request[] = []
    first.events.on("permission.asked", (event) => {
      requests.push(event.properties)
    })
    const approved = first.permission.ask({
      sessionID: session.id,
      permission: "edit",
      patterns: ["src/a.ts"],
      always: ["src/*"],
      ruleset: ask,
    })
    await settle()
    await first.permission.reply({ requestID: requests[0]!.id, reply: "always" })
    await approved
    await first.close()

    const second = createRuntime({ storage: new SqliteStorage(file), nonInteractive: "deny" })
    // Approved: nothing is asked (a non-interactive runtime would deny anything it had to ask).
    await second.permission.ask({
      sessionID: session.id,
      permission: "edit",
      patterns: ["src/b.ts"],
      ruleset: ask,
    })
    await second.permission.ask({
      sessionID: child.id,
      permission: "edit",
      patterns: ["src/c.ts"],
      ruleset: ask,
    })
    await expect(
      second.permission.ask({
        sessionID: session.id,
        permission: "edit",
        patterns: ["test/a.ts"],
        ruleset: ask,
      }),
    ).rejects.toThrow("non-interactive")
    await expect(
      second.permission.ask({
        sessionID: other.id,
        permission: "edit",
        patterns: ["src/b.ts"],
        ruleset: ask,
      }),
    ).rejects.toThrow("non-interactive")
    await second.close()
  })

  it("lists what was waiting when a process died, and lets a new runtime reject it", async () => {
    const crashed = createRuntime({ storage: new SqliteStorage(file) })
    const session = await crashed.session.create()
    void crashed.permission
      .ask({ sessionID: session.id, permission: "bash", patterns: ["make"], ruleset: ask })
      .catch(() => {})
    void crashed.question
      .ask({ sessionID: session.id, questions: [{ question: "Go on?", header: "Continue", options: [] }] })
      .catch(() => {})
    await settle()
    // The first runtime is never closed: its process "died" with both requests waiting.

    const restarted = createRuntime({ storage: new SqliteStorage(file) })
    const permissions = await restarted.permission.list()
    const questions = await restarted.question.list()
    expect(permissions.map((request) => request.patterns)).toEqual([["make"]])
    expect(questions.map((request) => request.questions[0]?.header)).toEqual(["Continue"])
    const replied: string[] = []
    restarted.events.onAny((event) => {
      replied.push(event.type)
    })
    await restarted.permission.reply({ requestID: permissions[0]!.id, reply: "reject" })
    await restarted.question.reject(questions[0]!.id)
    expect(replied).toEqual(["permission.replied", "question.rejected"])
    expect(await restarted.permission.list()).toEqual([])
    expect(await restarted.question.list()).toEqual([])
    await restarted.close()
    await crashed.close()
  })
})
