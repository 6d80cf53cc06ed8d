// Nothing hangs (ARCHITECTURE principle 8): a prompt waiting in a chat.message hook ends on cancel.
import { describe, expect, it } from "vitest"
import { MemoryStorage, MessageV2 } from "../../src/index.js"
import { createTestRuntime, say } from "../../src/testing/index.js"

const never = () => new Promise<never>(() => {})

/** `promise`, or a failure once `ms` have passed: a wait that would hang fails the test instead. */
function within<T>(promise: Promise<T>, ms = 2_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still pending after ${ms} ms`)), ms)
  })
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer))
}

/** A runtime whose chat.message hook never settles the first time; later prompts pass through. */
function stuckInChatMessage() {
  const storage = new MemoryStorage()
  const signals: AbortSignal[] = []
  let entered: () => void = () => {}
  const inHook = new Promise<void>((resolve) => {
    entered = resolve
  })
  const { runtime } = createTestRuntime({
    storage,
    turns: [[say.text("Answered")]],
    hooks: {
      "chat.message": (input) => {
        signals.push(input.abort)
        if (signals.length > 1) return
        entered()
        return never()
      },
    },
  })
  return { runtime, storage, signals, inHook }
}

describe("cancel while a prompt waits in a chat.message hook", () => {
  it("rejects the prompt with AbortedError, aborts the hook's signal and stores nothing", async () => {
    const { runtime, signals, inHook } = stuckInChatMessage()
    const session = await runtime.session.create()
    const answer = runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "hi" }] })
    answer.catch(() => undefined)
    await inHook
    expect(runtime.session.status(session.id)).toEqual({ type: "idle" })

    runtime.session.cancel(session.id)
    const error = await within(
      answer.then(
        () => undefined,
        (reason: unknown) => reason,
      ),
    )
    expect(MessageV2.AbortedError.isInstance(error), String(error)).toBe(true)
    expect(signals[0]?.aborted).toBe(true)
    expect(await runtime.session.messages(session.id)).toEqual([])
    expect(runtime.session.status(session.id)).toEqual({ type: "idle" })
  })

  it("leaves the session usable: the next prompt is answered", async () => {
    const { runtime, inHook } = stuckInChatMessage()
    const session = await runtime.session.create()
    const first = runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "hi" }] })
    first.catch(() => undefined)
    await inHook
    runtime.session.cancel(session.id)
    await within(first.catch(() => undefined))

    const answer = await within(
      runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "again" }] }),
    )
    expect(answer.info).toMatchObject({ role: "assistant", finish: "stop" })
    const stored = await runtime.session.messages(session.id)
    expect(stored.map((message) => message.info.role)).toEqual(["user", "assistant"])
  })

  it("does not touch a prompt waiting in the hook of another session", async () => {
    const { runtime, signals, inHook } = stuckInChatMessage()
    const stuck = await runtime.session.create()
    const other = await runtime.session.create()
    const answer = runtime.session.prompt({ sessionID: stuck.id, parts: [{ type: "text", text: "hi" }] })
    answer.catch(() => undefined)
    await inHook
    runtime.session.cancel(other.id)
    expect(signals[0]?.aborted).toBe(false)
    runtime.session.cancel(stuck.id)
    await within(answer.catch(() => undefined))
  })

  it("the prompt's own signal ends the wait too, with its reason, storing nothing", async () => {
    const { runtime, signals, inHook } = stuckInChatMessage()
    const session = await runtime.session.create()
    const controller = new AbortController()
    const answer = runtime.session.prompt({
      sessionID: session.id,
      parts: [{ type: "text", text: "hi" }],
      signal: controller.signal,
    })
    answer.catch(() => undefined)
    await inHook
    const reason = new Error("gave up")
    controller.abort(reason)
    await expect(within(answer)).rejects.toBe(reason)
    expect(signals[0]?.aborted).toBe(true)
    expect(await runtime.session.messages(session.id)).toEqual([])
  })
})

describe("many prompts at once", () => {
  it("add no listener each to one shared signal, in hooks or titles (no MaxListenersExceededWarning)", async () => {
    const warnings: string[] = []
    const onWarning = (warning: Error) => warnings.push(warning.name)
    process.on("warning", onWarning)
    let release: () => void = () => {}
    const released = new Promise<void>((resolve) => {
      release = resolve
    })
    let waiting = 0
    const { runtime } = createTestRuntime({
      turns: Array.from({ length: 15 }, () => [say.text("ok")]),
      hooks: {
        "chat.message": async () => {
          waiting++
          await released
        },
      },
    })
    try {
      const sessions = await Promise.all(Array.from({ length: 15 }, () => runtime.session.create()))
      const prompts = sessions.map((session) =>
        runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "hi" }] }),
      )
      while (waiting < sessions.length) await new Promise((resolve) => setImmediate(resolve))
      // A warning is emitted on the next tick after the listener that crossed the limit.
      await new Promise((resolve) => setImmediate(resolve))
      release()
      await within(Promise.all(prompts))
      // close() waits for the sessions' titles too, which call the model at the same time.
      await runtime.close()
      await new Promise((resolve) => setImmediate(resolve))
      expect(warnings).not.toContain("MaxListenersExceededWarning")
    } finally {
      process.off("warning", onWarning)
      await runtime.close()
    }
  })
})
