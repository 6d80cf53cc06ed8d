export type {
  TelemetryCall,
  TelemetryCallSettings,
  TelemetryStep,
  TelemetryToolCall,
} from "./call-attributes.js"
export { type CallTelemetry, createCallTelemetry } from "./call-telemetry.js"
export { loadGlobalTracer } from "./global-tracer.js"
export { OpenTelemetryNotInstalledError, TelemetryTracerMissingError } from "./telemetry-errors.js"
export type {
  Attributes,
  AttributeValue,
  Context,
  Span,
  TelemetrySettings,
  TelemetryUsage,
  Tracer,
} from "./types.js"
