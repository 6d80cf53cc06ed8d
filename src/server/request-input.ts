import type { Context } from "hono"
import type { z } from "zod"
import { InvalidInputError, parseInput } from "../error/invalid-input.js"
import type { Kind } from "../id/identifier.js"
import { parseID } from "../id/parse-id.js"
import { LOCATION_KEYS } from "./location.js"

/**
 * The request's JSON body checked against `schema`. An empty body counts as `{}`, so routes
 * whose fields are all optional can be called without one; malformed JSON is a 400 like any
 * other bad input.
 */
export async function readBody<T extends z.ZodType>(
  c: Context,
  what: string,
  schema: T,
): Promise<z.output<T>> {
  const text = await c.req.text()
  return parseInput(what, schema, text.trim() === "" ? {} : parseJSON(text))
}

/**
 * Query keys any route takes that are not its own: the location keys (checked by `checkLocation`)
 * and OpenCode's `auth_token`, the credentials of browser clients that cannot set headers (read
 * by `authorize`, e.g. the serve CLI's basic auth).
 */
const SHARED_QUERY_KEYS = [...LOCATION_KEYS, "auth_token"]

/**
 * The query string checked against `schema` (repeated keys keep their last value), without the
 * keys every route takes.
 */
export function readQuery<T extends z.ZodType>(c: Context, what: string, schema: T): z.output<T> {
  const query = Object.fromEntries(
    Object.entries(c.req.query()).filter(([key]) => !SHARED_QUERY_KEYS.includes(key)),
  )
  return parseInput(what, schema, query)
}

/** A path parameter that must be an ID of this kind; a malformed one is a 400 naming `field`. */
export function readID(c: Context, param: string, kind: Kind, field = param): string {
  return parseID(field, kind, c.req.param(param))
}

/** The `:sessionID` of a session route. */
export function readSessionID(c: Context): string {
  return readID(c, "sessionID", "session")
}

function parseJSON(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch (error) {
    const message = `Malformed JSON: ${error instanceof Error ? error.message : String(error)}`
    throw new InvalidInputError({
      message: `Invalid request body: ${message}`,
      issues: [{ path: "(root)", message }],
    })
  }
}
