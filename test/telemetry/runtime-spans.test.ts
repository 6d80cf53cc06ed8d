import { trace } from "@opentelemetry/api"
import { afterEach, describe, expect, it } from "vitest"
import { z } from "zod"
import { createRuntime, type TelemetrySettings, Tool } from "../../src/index.js"
import { createTestRuntime, say } from "../../src/testing/index.js"
import { createTracing } from "./tracing.js"

const echo = Tool.define("echo", {
  description: "Echoes",
  parameters: z.object({ text: z.string() }),
  execute: async ({ text }) => ({ title: text, output: `echo: ${text}`, metadata: {} }),
})

async function promptTwoSteps(telemetry: TelemetrySettings | undefined) {
  const { runtime } = createTestRuntime({
    tools: [echo],
    permission: [{ permission: "*", pattern: "*", action: "allow" }],
    turns: [[say.toolCall("echo", { text: "hi" }), say.usage({ input: 10, output: 2 })], [say.text("done")]],
    ...(telemetry ? { telemetry } : {}),
  })
  const session = await runtime.session.create({ title: "Traced" })
  const answer = await runtime.session.prompt({
    sessionID: session.id,
    parts: [{ type: "text", text: "go" }],
  })
  await runtime.close()
  return answer
}

describe("a runtime's telemetry", () => {
  afterEach(() => trace.disable())

  it("makes streamText's spans for each step and tool call, with the given function ID", async () => {
    const { tracer, spans } = createTracing()
    const answer = await promptTwoSteps({ isEnabled: true, tracer, functionId: "support-agent" })
    expect(answer.info).toMatchObject({ role: "assistant", finish: "stop" })
    const recorded = spans()
    expect(recorded.map((span) => [span.name, span.parent]).sort()).toEqual(
      [
        ["ai.streamText", undefined],
        ["ai.streamText", undefined],
        ["ai.streamText.doStream", "ai.streamText"],
        ["ai.streamText.doStream", "ai.streamText"],
        ["ai.toolCall", "ai.streamText.doStream"],
      ].sort(),
    )
    const tool = recorded.find((span) => span.name === "ai.toolCall")!
    expect(tool.attributes).toMatchObject({ "ai.toolCall.name": "echo", "ai.toolCall.args": '{"text":"hi"}' })
    const first = recorded.find((span) => span.name === "ai.streamText.doStream")!
    expect(first.attributes).toMatchObject({
      "operation.name": "ai.streamText.doStream support-agent",
      "ai.model.id": "scripted-model",
      "ai.usage.inputTokens": 10,
    })
  })

  it("tags each step's spans with the session, the agent and the step number", async () => {
    const { tracer, spans } = createTracing()
    const answer = await promptTwoSteps({ isEnabled: true, tracer, metadata: { tenant: "acme" } })
    const steps = spans().filter((span) => span.name === "ai.streamText")
    expect(steps.map((span) => span.attributes["ai.telemetry.metadata.step"]).sort()).toEqual([1, 2])
    for (const span of steps)
      expect(span.attributes).toMatchObject({
        "ai.telemetry.metadata.sessionID": answer.info.sessionID,
        "ai.telemetry.metadata.agent": "build",
        "ai.telemetry.metadata.tenant": "acme",
      })
  })

  it("uses the global OpenTelemetry tracer when given none", async () => {
    const { provider, spans } = createTracing()
    trace.setGlobalTracerProvider(provider)
    await promptTwoSteps({ isEnabled: true })
    expect(spans().filter((span) => span.name === "ai.streamText")).toHaveLength(2)
  })

  it("makes no spans when telemetry is off", async () => {
    const { provider, spans } = createTracing()
    trace.setGlobalTracerProvider(provider)
    await promptTwoSteps(undefined)
    await promptTwoSteps({ isEnabled: false })
    expect(spans()).toEqual([])
  })

  it("refuses a tracer that is not one", () => {
    expect(() => createRuntime({ telemetry: { isEnabled: true, tracer: {} as never } })).toThrow(
      /telemetry\.tracer: expected an OpenTelemetry Tracer/,
    )
  })
})
