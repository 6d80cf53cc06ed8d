import { afterEach, describe, expect, it, vi } from "vitest"
import {
  createRuntime,
  type Event,
  Identifier,
  InvalidInputError,
  MemoryStorage,
  NotFoundError,
  Permission,
  RuntimeClosedError,
  type RuntimeOptions,
} from "../../src/index.js"
import { rejection } from "../session/helpers.js"

afterEach(() => {
  vi.useRealTimers()
})

const ask: Permission.Rule[] = [{ permission: "*", pattern: "*", action: "ask" }]

async function setup(options: RuntimeOptions = {}) {
  const runtime = createRuntime(options)
  const events: Event[] = []
  runtime.events.onAny((event) => {
    events.push(event)
  })
  const session = await runtime.session.create()
  const asked = () =>
    events
      .filter((event) => event.type === "permission.asked")
      .map((event) => event.properties as Permission.Request)
  const replies = () =>
    events.flatMap((event) =>
      event.type === "permission.replied" ? [[event.properties.requestID, event.properties.reply]] : [],
    )
  /** Starts an ask and returns its settled outcome as a promise that never rejects. */
  const start = (input: Partial<Permission.AskInput> & { patterns: string[] }) => {
    const outcome = runtime.permission
      .ask({ sessionID: session.id, permission: "bash", ruleset: ask, ...input })
      .then(
        () => "allowed" as const,
        (error: Error) => error,
      )
    return outcome
  }
  return { runtime, session, events, asked, replies, start }
}

/** Lets pending storage writes and publishes run. */
const settle = () => new Promise((resolve) => setImmediate(resolve))

describe("runtime.permission.ask", () => {
  it("allows at once what the rules allow, without asking", async () => {
    const { runtime, session, events } = await setup()
    await runtime.permission.ask({
      sessionID: session.id,
      permission: "bash",
      patterns: ["ls -la", "git status"],
      ruleset: [{ permission: "bash", pattern: "*", action: "allow" }],
    })
    expect(events.filter((event) => event.type.startsWith("permission"))).toEqual([])
    expect(await runtime.permission.list()).toEqual([])
  })

  it("denies at once when any pattern is denied, even if others would ask, leaving nothing pending", async () => {
    const { runtime, session, events } = await setup()
    const rules: Permission.Rule[] = [...ask, { permission: "bash", pattern: "rm *", action: "deny" }]
    const error = await rejection(
      runtime.permission.ask({
        sessionID: session.id,
        permission: "bash",
        patterns: ["ls", "rm -rf /"],
        ruleset: rules,
      }),
    )
    expect(Permission.DeniedError.isInstance(error)).toBe(true)
    expect((error as Permission.DeniedError).data.rules).toEqual([rules[1]])
    expect(error.message).toContain('bash "rm *" -> deny')
    expect(await runtime.permission.list()).toEqual([])
    expect(events.filter((event) => event.type.startsWith("permission"))).toEqual([])
  })

  it("stores and publishes a request, and resolves it on a once reply", async () => {
    const { runtime, session, asked, replies, start } = await setup()
    const outcome = start({ patterns: ["npm test"], always: ["npm *"], metadata: { command: "npm test" } })
    await settle()
    const [request] = asked()
    expect(request).toMatchObject({
      sessionID: session.id,
      permission: "bash",
      patterns: ["npm test"],
      always: ["npm *"],
    })
    expect(request?.id).toMatch(/^per_/)
    expect(await runtime.permission.list()).toEqual([request])
    await runtime.permission.reply({ requestID: request!.id, reply: "once" })
    expect(await outcome).toBe("allowed")
    expect(await runtime.permission.list()).toEqual([])
    expect(replies()).toEqual([[request!.id, "once"]])
    // "once" approves nothing for later calls.
    start({ patterns: ["npm test"] })
    await settle()
    expect(asked()).toHaveLength(2)
  })

  it("rejects with the model-facing message and rejects the session's other requests, not other sessions'", async () => {
    const { runtime, session, asked, start } = await setup()
    const other = await runtime.session.create()
    const first = start({ patterns: ["a"] })
    const second = start({ patterns: ["b"] })
    const elsewhere = runtime.permission.ask({
      sessionID: other.id,
      permission: "bash",
      patterns: ["c"],
      ruleset: ask,
    })
    await settle()
    await runtime.permission.reply({ requestID: asked()[0]!.id, reply: "reject" })
    const [error1, error2] = await Promise.all([first, second])
    for (const error of [error1, error2]) {
      expect(Permission.RejectedError.isInstance(error)).toBe(true)
      expect((error as Error).message).toBe("The user rejected permission to use this specific tool call.")
    }
    const remaining = await runtime.permission.list()
    expect(remaining.map((request) => request.sessionID)).toEqual([other.id])
    await runtime.permission.reply({ requestID: remaining[0]!.id, reply: "once" })
    await elsewhere
    expect(session.id).not.toBe(other.id)
  })

  it("turns a rejection with a message into a correction carrying the feedback", async () => {
    const { runtime, asked, start } = await setup()
    const outcome = start({ patterns: ["rm -rf build"] })
    await settle()
    await runtime.permission.reply({
      requestID: asked()[0]!.id,
      reply: "reject",
      message: "Use npm run clean instead",
    })
    const error = (await outcome) as Permission.CorrectedError
    expect(Permission.CorrectedError.isInstance(error)).toBe(true)
    expect(error.data.feedback).toBe("Use npm run clean instead")
    expect(error.message).toContain("The user rejected permission to use this specific tool call.")
    expect(error.message).toContain("Use npm run clean instead")
  })

  it("records always-approvals that resolve waiting requests of the session and its children, not others'", async () => {
    const { runtime, session, asked, replies, start } = await setup()
    const child = await runtime.session.create({ parentID: session.id })
    const unrelated = await runtime.session.create()
    const first = start({ patterns: ["npm test"], always: ["npm *"] })
    const sibling = start({ patterns: ["npm run build"] })
    const partly = start({ patterns: ["npm run lint", "git push"] })
    const inChild = runtime.permission
      .ask({ sessionID: child.id, permission: "bash", patterns: ["npm ci"], ruleset: ask })
      .then(() => "allowed")
    const inOther = runtime.permission
      .ask({ sessionID: unrelated.id, permission: "bash", patterns: ["npm ci"], ruleset: ask })
      .then(() => "allowed")
    await settle()
    await runtime.permission.reply({ requestID: asked()[0]!.id, reply: "always" })
    expect(await Promise.all([first, sibling, inChild])).toEqual(["allowed", "allowed", "allowed"])
    const waiting = await runtime.permission.list()
    expect(waiting.map((request) => request.patterns)).toEqual([["npm run lint", "git push"], ["npm ci"]])
    expect(waiting[1]?.sessionID).toBe(unrelated.id)
    expect(replies().map(([, reply]) => reply)).toEqual(["always", "always", "always"])
    // Later calls in the session are approved without asking.
    await runtime.permission.ask({
      sessionID: session.id,
      permission: "bash",
      patterns: ["npm install"],
      ruleset: ask,
    })
    await runtime.permission.reply({ requestID: waiting[0]!.id, reply: "once" })
    await runtime.permission.reply({ requestID: waiting[1]!.id, reply: "once" })
    expect(await partly).toBe("allowed")
    expect(await inOther).toBe("allowed")
  })

  it("never lets an approval override a configured deny", async () => {
    const { runtime, session, asked, start } = await setup()
    const first = start({ patterns: ["rm tmp"], always: ["*"] })
    await settle()
    await runtime.permission.reply({ requestID: asked()[0]!.id, reply: "always" })
    await first
    const rules: Permission.Rule[] = [...ask, { permission: "bash", pattern: "rm -rf *", action: "deny" }]
    const error = await rejection(
      runtime.permission.ask({
        sessionID: session.id,
        permission: "bash",
        patterns: ["rm -rf /"],
        ruleset: rules,
      }),
    )
    expect(Permission.DeniedError.isInstance(error)).toBe(true)
    await runtime.permission.ask({
      sessionID: session.id,
      permission: "bash",
      patterns: ["rm tmp2"],
      ruleset: rules,
    })
  })

  it("shares approvals across sessions with runtime scope", async () => {
    const { runtime, asked, start } = await setup({ approvalScope: "runtime" })
    const other = await runtime.session.create()
    const first = start({ patterns: ["ls"], always: ["ls *"] })
    await settle()
    await runtime.permission.reply({ requestID: asked()[0]!.id, reply: "always" })
    await first
    await runtime.permission.ask({
      sessionID: other.id,
      permission: "bash",
      patterns: ["ls -la"],
      ruleset: ask,
    })
    expect(asked()).toHaveLength(1)
  })

  it("rejects a request that gets no answer in time, per call or by the runtime default", async () => {
    vi.useFakeTimers()
    const { runtime, start } = await setup({ askTimeoutMs: 60_000 })
    const perCall = start({ patterns: ["a"], timeoutMs: 1_000 })
    const byDefault = start({ patterns: ["b"] })
    await vi.advanceTimersByTimeAsync(1_000)
    const error = (await perCall) as Permission.RejectedError
    expect(Permission.RejectedError.isInstance(error)).toBe(true)
    expect(error.data.reason).toBe("timeout")
    expect(error.message).toContain("timed out after 1000 ms")
    expect(await runtime.permission.list()).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(59_000)
    expect(((await byDefault) as Permission.RejectedError).data.reason).toBe("timeout")
    expect(await runtime.permission.list()).toEqual([])
  })

  it("waits out a timeout of 2^31 ms or more, which a single timer would fire after 1 ms", async () => {
    vi.useFakeTimers()
    const { runtime, start } = await setup({ askTimeoutMs: 2 ** 31 })
    const perCall = start({ patterns: ["a"], timeoutMs: 2 ** 32 + 5 })
    const byDefault = start({ patterns: ["b"] })
    const outcomes: unknown[] = []
    for (const outcome of [perCall, byDefault]) void outcome.then((value) => outcomes.push(value))
    await vi.advanceTimersByTimeAsync(1)
    expect(outcomes).toEqual([])
    await vi.advanceTimersByTimeAsync(2 ** 31 - 2)
    expect(outcomes).toEqual([])
    expect(await runtime.permission.list()).toHaveLength(2)
    await vi.advanceTimersByTimeAsync(1)
    const error = (await byDefault) as Permission.RejectedError
    expect(error.data.reason).toBe("timeout")
    expect(error.message).toContain(`timed out after ${2 ** 31} ms`)
    await vi.advanceTimersByTimeAsync(2 ** 31 + 4)
    expect(outcomes).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(((await perCall) as Permission.RejectedError).data.reason).toBe("timeout")
    expect(await runtime.permission.list()).toEqual([])
  })

  it("waits without limit when a call's timeoutMs is Infinity, whatever the runtime default", async () => {
    vi.useFakeTimers()
    const { runtime, asked, start } = await setup({ askTimeoutMs: 1_000 })
    const outcome = start({ patterns: ["a"], timeoutMs: Number.POSITIVE_INFINITY })
    await vi.advanceTimersByTimeAsync(2 ** 40)
    expect(await runtime.permission.list()).toHaveLength(1)
    await runtime.permission.reply({ requestID: asked()[0]!.id, reply: "once" })
    expect(await outcome).toBe("allowed")
  })

  it("refuses a timeout that is not a positive whole number of milliseconds or Infinity, asking nothing", async () => {
    const { runtime, events, start } = await setup()
    for (const timeoutMs of [0, -1, 1.5, Number.NaN, Number.NEGATIVE_INFINITY, 2 ** 53, "60000"]) {
      const error = (await start({ patterns: ["a"], timeoutMs: timeoutMs as number })) as InvalidInputError
      expect(InvalidInputError.isInstance(error), String(timeoutMs)).toBe(true)
      expect(error.data.issues.map((issue) => issue.path)).toEqual(["timeoutMs"])
      expect(error.message).toContain(String(Number.MAX_SAFE_INTEGER))
    }
    expect(events.filter((event) => event.type.startsWith("permission"))).toEqual([])
    expect(await runtime.permission.list()).toEqual([])
  })

  it("withdraws a request when the call's signal aborts", async () => {
    const { runtime, start } = await setup()
    const controller = new AbortController()
    const outcome = start({ patterns: ["a"], signal: controller.signal })
    await settle()
    controller.abort()
    expect(((await outcome) as Permission.RejectedError).data.reason).toBe("aborted")
    expect(await runtime.permission.list()).toEqual([])
  })

  it("applies a non-interactive policy instead of waiting", async () => {
    const denying = await setup({ nonInteractive: "deny" })
    const error = await denying.start({ patterns: ["make"] })
    expect(Permission.DeniedError.isInstance(error)).toBe(true)
    expect((error as Error).message).toContain("non-interactive")
    expect(denying.asked()).toEqual([])
    const allowing = await setup({ nonInteractive: "allow" })
    expect(await allowing.start({ patterns: ["make"] })).toBe("allowed")
    const stillDenied = await allowing.start({
      patterns: ["make"],
      ruleset: [{ permission: "bash", pattern: "make", action: "deny" }],
    })
    expect(Permission.DeniedError.isInstance(stillDenied)).toBe(true)
  })

  it("takes answers from an onPermission handler", async () => {
    const answers: Permission.HandlerAnswer[] = ["once", { reply: "reject", message: "not now" }, "always"]
    const seen: string[] = []
    const { start, asked } = await setup({
      onPermission: async (request) => {
        seen.push(request.patterns[0]!)
        return answers.shift()!
      },
    })
    expect(await start({ patterns: ["one"] })).toBe("allowed")
    expect(Permission.CorrectedError.isInstance(await start({ patterns: ["two"] }))).toBe(true)
    expect(await start({ patterns: ["three"], always: ["*"] })).toBe("allowed")
    expect(await start({ patterns: ["four"] })).toBe("allowed")
    expect(seen).toEqual(["one", "two", "three"])
    expect(asked()).toHaveLength(3)
  })

  it("rejects when the handler fails, and withdraws the handler's prompt when answered elsewhere", async () => {
    let withdrawn = false
    const failing = await setup({
      onPermission: async () => {
        throw new Error("UI crashed")
      },
    })
    const error = (await failing.start({ patterns: ["x"] })) as Permission.RejectedError
    expect(error.data.reason).toBe("handler")
    expect(error.message).toContain("UI crashed")

    const slow = await setup({
      onPermission: (_request, { signal }) =>
        new Promise<Permission.Reply>((resolve) => {
          signal.addEventListener("abort", () => {
            withdrawn = true
            resolve("reject")
          })
        }),
    })
    const outcome = slow.start({ patterns: ["y"] })
    await settle()
    await slow.runtime.permission.reply({ requestID: slow.asked()[0]!.id, reply: "once" })
    expect(await outcome).toBe("allowed")
    expect(withdrawn).toBe(true)
  })

  it("refuses unknown requests, malformed replies and unknown sessions", async () => {
    const { runtime, start, asked } = await setup()
    const requestID = Identifier.ascending("permission")
    const unknown = await rejection(runtime.permission.reply({ requestID, reply: "once" }))
    expect(NotFoundError.isInstance(unknown)).toBe(true)
    expect(unknown.message).toContain(requestID)
    start({ patterns: ["a"] })
    await settle()
    const malformed = await rejection(
      runtime.permission.reply({ requestID: asked()[0]!.id, reply: "sure" as "once" }),
    )
    expect((malformed as InvalidInputError).data.issues[0]?.path).toBe("reply")
    const noPatterns = await rejection(
      runtime.permission.ask({ sessionID: asked()[0]!.sessionID, permission: "bash", patterns: [] }),
    )
    expect((noPatterns as InvalidInputError).data.issues[0]?.path).toBe("patterns")
    const sessionID = Identifier.descending("session")
    const missing = await rejection(
      runtime.permission.ask({ sessionID, permission: "bash", patterns: ["a"] }),
    )
    expect((missing as NotFoundError).data.id).toBe(sessionID)
    expect(await runtime.permission.list()).toHaveLength(1)
  })

  it("leaves what is pending stored when the runtime closes, as a crash would", async () => {
    const storage = new MemoryStorage()
    const { runtime, start, replies } = await setup({ storage })
    const outcome = start({ patterns: ["a"] })
    await settle()
    await runtime.close()
    expect(RuntimeClosedError.isInstance(await outcome)).toBe(true)
    expect(replies()).toEqual([])
    expect(await storage.listValues("permission/pending/")).toHaveLength(1)
  })

  it("rejects everything pending when the runtime closes with asks: 'reject'", async () => {
    const storage = new MemoryStorage()
    const { runtime, start, replies } = await setup({ storage })
    const outcome = start({ patterns: ["a"] })
    await settle()
    await runtime.close({ asks: "reject" })
    expect(((await outcome) as Permission.RejectedError).data.reason).toBe("closed")
    expect(replies().map(([, reply]) => reply)).toEqual(["reject"])
    expect(await storage.listValues("permission/pending/")).toEqual([])
  })

  it("keeps two runtimes' requests apart", async () => {
    const a = await setup()
    const b = await setup()
    a.start({ patterns: ["a"] })
    await settle()
    expect(await b.runtime.permission.list()).toEqual([])
    expect(b.asked()).toEqual([])
    const error = await rejection(b.runtime.permission.reply({ requestID: a.asked()[0]!.id, reply: "once" }))
    expect(NotFoundError.isInstance(error)).toBe(true)
  })
})
