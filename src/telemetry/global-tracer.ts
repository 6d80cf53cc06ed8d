import { importOptional } from "../util/import-optional.js"
import { OpenTelemetryNotInstalledError } from "./telemetry-errors.js"
import type { Tracer } from "./types.js"

type OpenTelemetryApi = { trace: { getTracer(name: string): Tracer } }

/**
 * The tracer the AI SDK uses when telemetry is enabled without one: `trace.getTracer("ai")` of
 * the global `@opentelemetry/api`. The API is an optional peer, so it is loaded here, on demand,
 * by a name bundlers do not follow (a Worker bundles without it); call this once where telemetry
 * is set up (enabled, no `tracer`) and pass the result on as `tracer`. The tracer follows
 * whichever provider is registered globally, also a later one. Throws
 * OpenTelemetryNotInstalledError when the API cannot be loaded (not installed, or a bundle).
 */
export async function loadGlobalTracer(
  load: () => Promise<OpenTelemetryApi> = () => importOptional<OpenTelemetryApi>("@opentelemetry/api"),
): Promise<Tracer> {
  let api: OpenTelemetryApi
  try {
    api = await load()
  } catch (error) {
    throw new OpenTelemetryNotInstalledError(
      {
        message:
          "Telemetry without a tracer uses the global OpenTelemetry tracer, and @opentelemetry/api could not " +
          "be loaded: install it (npm install @opentelemetry/api) or pass `tracer` in the telemetry settings " +
          "(a bundle, such as a Cloudflare Worker, does not load it: pass `tracer` there)",
      },
      { cause: error },
    )
  }
  return api.trace.getTracer("ai")
}
