import { createRuntime, type Runtime, type RuntimeOptions } from "../index.js"
import { ModuleLoadError } from "./errors.js"

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null

/**
 * The runtime a module's default export stands for: a runtime (it has `session` and `close`) as
 * it is, or runtime options made into one. The question tool is on unless the options turn it off,
 * since the attached terminal UI answers questions. Throws ModuleLoadError, naming `path`, for
 * anything else, and createRuntime's InvalidInputError for malformed options.
 */
export function runtimeOf(exported: unknown, path: string): Runtime {
  if (exported === undefined)
    throw new ModuleLoadError({
      message: `${path} has no default export: export default the runtime options (or a runtime)`,
      path,
    })
  if (!isObject(exported) || Array.isArray(exported))
    throw new ModuleLoadError({
      message: `${path}'s default export is not runtime options or a runtime, but ${describe(exported)}`,
      path,
    })
  if (isObject(exported.session) && typeof exported.close === "function") return exported as Runtime
  const options = exported as RuntimeOptions
  return createRuntime({ ...options, question: options.question ?? true })
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return "an array"
  if (typeof value === "function") return "a function"
  return JSON.stringify(value)
}
