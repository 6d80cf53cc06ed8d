import { z } from "zod"
import { NamedError } from "../error/named-error.js"

const MessageData = z.object({ message: z.string() })

/** Telemetry needs the global tracer and `@opentelemetry/api` could not be loaded. */
export class OpenTelemetryNotInstalledError extends NamedError<
  "OpenTelemetryNotInstalledError",
  z.infer<typeof MessageData>
> {
  static override readonly errorName = "OpenTelemetryNotInstalledError"
  static readonly Schema = z.object({ name: z.literal("OpenTelemetryNotInstalledError"), data: MessageData })
}

/** Telemetry is enabled with no tracer: neither the settings' own nor the global one was given. */
export class TelemetryTracerMissingError extends NamedError<
  "TelemetryTracerMissingError",
  z.infer<typeof MessageData>
> {
  static override readonly errorName = "TelemetryTracerMissingError"
  static readonly Schema = z.object({ name: z.literal("TelemetryTracerMissingError"), data: MessageData })
}
