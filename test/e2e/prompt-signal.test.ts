import { describe, expect, it } from "vitest"
import { z } from "zod"
import { InvalidInputError, Tool } from "../../src/index.js"
import { createTestRuntime, say } from "../../src/testing/index.js"

/** A tool that runs until its call is aborted, and says when it started. */
function blocking() {
  let started!: (signal: AbortSignal) => void
  const running = new Promise<AbortSignal>((resolve) => {
    started = resolve
  })
  const tool = Tool.define("wait", {
    description: "Waits until aborted",
    parameters: z.object({}),
    async execute(_, context) {
      started(context.abort)
      await new Promise((_, reject) =>
        context.abort.addEventListener("abort", () => reject(context.abort.reason)),
      )
      return { title: "", output: "", metadata: {} }
    },
  })
  return { tool, running }
}

const aborted = (message: { info: { role: string } & Record<string, unknown> }) =>
  message.info.role === "assistant" && (message.info.error as { name?: string } | undefined)?.name

describe("prompt({ signal })", () => {
  it("aborting the signal cancels the caller's run", async () => {
    const { tool, running } = blocking()
    const { runtime } = createTestRuntime({ tools: [tool], turns: [[say.toolCall("wait", {})]] })
    const session = await runtime.session.create({ title: "signal" })
    const controller = new AbortController()
    const prompt = runtime.session.prompt({
      sessionID: session.id,
      parts: [{ type: "text", text: "go" }],
      signal: controller.signal,
    })
    await running
    controller.abort()
    const answer = await prompt
    expect(aborted(answer)).toBe("AbortedError")
    expect(runtime.session.status(session.id).type).toBe("idle")
  })

  it("cancels a joined run only when every waiting caller aborted", async () => {
    const { tool, running } = blocking()
    const { runtime } = createTestRuntime({ tools: [tool], turns: [[say.toolCall("wait", {})]] })
    const session = await runtime.session.create({ title: "signal" })
    const first = new AbortController()
    const second = new AbortController()
    const ask = (text: string, signal: AbortSignal) =>
      runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text }], signal })
    const one = ask("one", first.signal)
    const call = await running
    // The second prompt waits on the run once its message is stored and the session touched.
    const joined = new Promise<void>((resolve) => {
      let users = 0
      const off = runtime.events.onAny((event) => {
        if (event.type === "message.updated" && event.properties.info.role === "user") users++
        else if (users === 1 && event.type === "session.updated") {
          off()
          setImmediate(resolve)
        }
      })
    })
    const two = ask("two", second.signal)
    await joined
    first.abort()
    // One caller still waits: the run goes on, its tool call too.
    await new Promise((resolve) => setImmediate(resolve))
    expect(call.aborted).toBe(false)
    expect(runtime.session.status(session.id).type).toBe("busy")
    second.abort()
    const [a, b] = await Promise.all([one, two])
    expect(aborted(a)).toBe("AbortedError")
    expect(b.info).toEqual(a.info)
    expect([a.finish.reason, b.finish.reason]).toEqual(["aborted", "aborted"])
  })

  it("stores nothing for an already aborted signal, and names a signal that is not one", async () => {
    const { runtime } = createTestRuntime({ turns: [] })
    const session = await runtime.session.create({ title: "signal" })
    const parts = [{ type: "text" as const, text: "go" }]
    await expect(
      runtime.session.prompt({ sessionID: session.id, parts, signal: AbortSignal.abort(new Error("stop")) }),
    ).rejects.toThrow("stop")
    const bad = await runtime.session
      .prompt({ sessionID: session.id, parts, signal: "soon" as unknown as AbortSignal })
      .catch((error) => error)
    expect(InvalidInputError.isInstance(bad) && bad.data.issues[0]?.path).toBe("signal")
    expect(await runtime.session.messages(session.id)).toEqual([])
  })
})
