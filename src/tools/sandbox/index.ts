export { SandboxPathError, SandboxUnavailableError } from "./errors.js"
export type { SandboxLimits, SandboxOptions, SandboxUser } from "./options.js"
export { type SandboxOperations, sandboxOperations } from "./sandbox-operations.js"
