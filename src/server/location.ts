import { resolve } from "node:path"
import type { MiddlewareHandler } from "hono/types"
import { InvalidInputError } from "../error/invalid-input.js"

/** Where OpenCode's clients say which directory and workspace a request is for. */
export const LOCATION_KEYS = ["directory", "workspace", "location[directory]", "location[workspace]"]
const DIRECTORY_HEADER = "x-opencode-directory"

/**
 * One runtime serves one directory. OpenCode's clients name theirs on every request (in the query
 * for GET, in a header otherwise); a request for another directory is refused, never served from
 * this one.
 */
export function checkLocation(directory: string): MiddlewareHandler {
  const served = resolve(directory)
  return async (c, next) => {
    const header = c.req.header(DIRECTORY_HEADER)
    const named = c.req.query("directory") ?? c.req.query("location[directory]") ?? decoded(header)
    if (named !== undefined && named !== "" && resolve(named) !== served) {
      const message = `This server serves ${served}, not ${named}: one runtime, one directory`
      throw new InvalidInputError({ message, issues: [{ path: "directory", message }] })
    }
    await next()
  }
}

function decoded(value: string | undefined): string | undefined {
  if (value === undefined) return undefined
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}
