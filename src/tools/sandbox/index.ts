export { SandboxPathError, SandboxUnavailableError } from "./errors.js"
export type { SandboxLimits, SandboxOptions } from "./options.js"
export { type SandboxOperations, sandboxOperations } from "./sandbox-operations.js"
