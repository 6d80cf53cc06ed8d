import { describe, expect, it } from "vitest"
import {
  createRuntime,
  InvalidInputError,
  MemoryStorage,
  Permission,
  type RuntimeOptions,
} from "../../src/index.js"
import { rejection } from "../session/helpers.js"

const ask: Permission.Rule[] = [{ permission: "*", pattern: "*", action: "ask" }]

/** Lets pending storage writes and publishes run. */
const settle = () => new Promise((resolve) => setImmediate(resolve))

async function setup(options: RuntimeOptions = {}) {
  const storage = new MemoryStorage()
  const runtime = createRuntime({ storage, ...options })
  const session = await runtime.session.create()
  const asked: Permission.Request[] = []
  runtime.events.on("permission.asked", (event) => {
    asked.push(event.properties)
  })
  /** Starts an ask in the session; the promise settles to "allowed" or the error, never rejects. */
  const start = (input: { permission: string; patterns: string[]; always?: string[] }) =>
    runtime.permission.ask({ sessionID: session.id, ruleset: ask, ...input }).then(
      () => "allowed" as const,
      (error: Error) => error,
    )
  /** Answers the latest request "always" and waits for the call that asked it. */
  const approveAlways = async (outcome: Promise<unknown>) => {
    await settle()
    await runtime.permission.reply({ requestID: asked.at(-1)!.id, reply: "always" })
    expect(await outcome).toBe("allowed")
  }
  return { storage, runtime, session, asked, start, approveAlways }
}

describe("always-approvals", () => {
  it("approve the request's own permission for the always patterns as stated, wildcards included", async () => {
    const { asked, start, approveAlways } = await setup()
    await approveAlways(start({ permission: "bash", patterns: ["npm test"], always: ["npm *"] }))
    expect(await start({ permission: "bash", patterns: ["npm ci"] })).toBe("allowed")
    void start({ permission: "bash", patterns: ["git push"] })
    void start({ permission: "bash_2", patterns: ["npm ci"] })
    await settle()
    expect(asked.map((request) => request.permission)).toEqual(["bash", "bash", "bash_2"])
  })

  it("approve nothing for later calls when the request stated no always patterns", async () => {
    const { storage, asked, start, approveAlways } = await setup()
    await approveAlways(start({ permission: "bash", patterns: ["make"] }))
    expect(await storage.listValues("permission/approved/")).toEqual([])
    void start({ permission: "bash", patterns: ["make"] })
    await settle()
    expect(asked).toHaveLength(2)
  })

  it("never read an approval stored earlier with a wildcard permission as approving others", async () => {
    // A runtime before approvals were literal could store { permission: "mcp_*" } from a request
    // whose permission was "mcp_*"; it must not now approve every mcp_ tool (and such requests
    // are refused now).
    const { storage, runtime, session } = await setup({ nonInteractive: "deny" })
    await storage.write(
      ["*", "mcp_*"].map((permission) => ({
        type: "value.put" as const,
        key: `permission/approved/${session.id}/${JSON.stringify([permission, "*"])}`,
        value: { permission, pattern: "*", action: "allow" },
      })),
    )
    const askFor = (permission: string) =>
      runtime.permission.ask({ sessionID: session.id, permission, patterns: ["x"], ruleset: ask })
    for (const permission of ["bash", "mcp_github"]) {
      const error = await rejection(askFor(permission))
      expect(Permission.DeniedError.isInstance(error)).toBe(true)
      expect(error.message).toContain("non-interactive")
    }
  })
})

describe("a permission request", () => {
  it("names one literal permission: a wildcard is refused before anything is asked", async () => {
    const runtime = createRuntime()
    const session = await runtime.session.create()
    for (const permission of ["*", "bash*", "ed?t"])
      await expect(
        runtime.permission.ask({ sessionID: session.id, permission, patterns: ["x"] }),
      ).rejects.toSatisfy((error) => InvalidInputError.isInstance(error))
  })
})
