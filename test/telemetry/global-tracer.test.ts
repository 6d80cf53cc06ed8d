import { trace } from "@opentelemetry/api"
import { afterEach, describe, expect, it } from "vitest"
import {
  createCallTelemetry,
  loadGlobalTracer,
  OpenTelemetryNotInstalledError,
} from "../../src/telemetry/index.js"
import { createTracing } from "./tracing.js"

afterEach(() => trace.disable())

describe("loadGlobalTracer", () => {
  it("gives the global tracer, following the provider registered later", async () => {
    const tracer = await loadGlobalTracer()
    const { provider, spans } = createTracing()
    trace.setGlobalTracerProvider(provider)
    const telemetry = createCallTelemetry(
      { isEnabled: true, tracer },
      { model: { provider: "p", modelId: "m" }, settings: {}, prompt: () => [], tools: () => [] },
    )
    telemetry.end()
    expect(spans().map((span) => span.name)).toEqual(["ai.streamText.doStream", "ai.streamText"])
  })

  it("names the missing package when @opentelemetry/api cannot be loaded", async () => {
    const missing = Object.assign(new Error("Cannot find package '@opentelemetry/api'"), {
      code: "ERR_MODULE_NOT_FOUND",
    })
    const loading = loadGlobalTracer(() => Promise.reject(missing))
    await expect(loading).rejects.toSatisfy(
      (error: unknown) => OpenTelemetryNotInstalledError.isInstance(error) && error.cause === missing,
    )
    await expect(loading).rejects.toThrow(/npm install @opentelemetry\/api/)
  })
})
