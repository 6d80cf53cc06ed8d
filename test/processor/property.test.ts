import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { Tool } from "../../src/index.js"
import { type ScriptStep, type StreamChunk, say } from "../../src/testing/index.js"
import { turnSetup, user } from "./helpers.js"

type Segment =
  | { kind: "text" | "reasoning"; deltas: string[]; closed: boolean }
  | { kind: "tool"; mode: "ok" | "throw" | "abort"; called: boolean }

const segment: fc.Arbitrary<Segment> = fc.oneof(
  fc.record({
    kind: fc.constantFrom("text" as const, "reasoning" as const),
    deltas: fc.array(fc.string({ maxLength: 5 }), { maxLength: 4 }),
    closed: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant("tool" as const),
    mode: fc.constantFrom("ok" as const, "throw" as const, "abort" as const),
    called: fc.boolean(),
  }),
)
const ending = fc.constantFrom("finish", "error", "throw-before", "abort-later")

function script(segments: Segment[], end: string): ScriptStep[] {
  const steps: ScriptStep[] = []
  segments.forEach((piece, index) => {
    const id = `${piece.kind}-${index}`
    if (piece.kind === "tool") {
      steps.push(say.chunk({ type: "tool-input-start", id, toolName: "work" }))
      const input = JSON.stringify({ mode: piece.mode })
      if (piece.called) steps.push(say.chunk({ type: "tool-call", toolCallId: id, toolName: "work", input }))
      return
    }
    const chunk = (type: string, extra: object = {}) => say.chunk({ type, id, ...extra } as StreamChunk)
    steps.push(chunk(`${piece.kind}-start`))
    for (const delta of piece.deltas) steps.push(chunk(`${piece.kind}-delta`, { delta }))
    if (piece.closed) steps.push(chunk(`${piece.kind}-end`))
  })
  if (end === "error") steps.push(say.error({ type: "api_error", message: "Internal error" }))
  if (end === "abort-later") steps.push(say.delay(3_600_000))
  return steps
}

describe("SessionProcessor (property)", () => {
  it("always leaves tools finished, texts ended and the message completed", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(segment, { maxLength: 6 }),
        ending,
        fc.nat(12),
        fc.constantFrom("once" as const, "reject" as const),
        async (segments, end, abortAfter, reply) => {
          const steps = script(segments, end)
          // Three identical calls ask the doom-loop question: someone must answer it.
          const setup = await turnSetup(
            [end === "throw-before" ? { throws: new Error("connection refused") } : steps],
            { onPermission: async () => reply },
          )
          const work = Tool.define("work", {
            description: "Does work in one of three ways",
            parameters: z.object({ mode: z.enum(["ok", "throw", "abort"]) }),
            async execute({ mode }, context) {
              if (mode === "ok") return { title: "done", output: "ok", metadata: {} }
              if (mode === "throw") throw new Error("tool failed")
              setup.abort.abort()
              await new Promise((_resolve, reject) =>
                context.abort.addEventListener("abort", () => reject(new Error("aborted"))),
              )
              return { title: "never", output: "", metadata: {} }
            },
          })
          let seen = 0
          setup.runtime.events.onAny(() => {
            if (end === "abort-later" && ++seen === abortAfter + 1) setup.abort.abort()
          })
          // A script that waits an hour only ends by abort: make sure one comes.
          const watchdog = end === "abort-later" ? setImmediate(() => setup.abort.abort()) : undefined
          const result = await setup.processor.process({ messages: user("go"), tools: [work] })
          if (watchdog) clearImmediate(watchdog)
          expect(["continue", "stop", "compact"]).toContain(result)
          const { info, parts } = await setup.stored()
          expect(info.role === "assistant" && info.time.completed).toBeGreaterThan(0)
          for (const part of parts) {
            if (part.type === "tool") expect(["completed", "error"]).toContain(part.state.status)
            if (part.type === "text" || part.type === "reasoning") expect(part.time?.end).toBeDefined()
          }
          if (setup.abort.signal.aborted)
            expect(info.role === "assistant" && info.error?.name).toBe("AbortedError")
        },
      ),
      // A run takes about 50 ms; the timeout turns a hang into a counterexample.
      {
        numRuns: 150,
        timeout: 2_000,
        // Found by this property: three identical failing calls ask the doom-loop question while a
        // text part is still open.
        examples: (["once", "reject"] as const).map(
          (reply): [Segment[], "finish", number, "once" | "reject"] => [
            [
              { kind: "tool", mode: "throw", called: true },
              { kind: "tool", mode: "throw", called: true },
              { kind: "tool", mode: "ok", called: false },
              { kind: "tool", mode: "throw", called: true },
              { kind: "text", deltas: [], closed: false },
            ],
            "finish",
            0,
            reply,
          ],
        ),
      },
    )
  }, 60_000)
})
