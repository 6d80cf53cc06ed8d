import { z } from "zod"

/**
 * The one name a plain object cannot hold as an entry: assigning `object["__proto__"]` sets the
 * object's prototype, and zod's records drop the key without a word. So a host's agent, tool or
 * command given that name (a JSON-parsed key, or one made with Object.defineProperty) would
 * vanish or, worse, change what every other name resolves to: it is refused instead.
 */
export const PROTO_KEY = "__proto__"

export const PROTO_KEY_MESSAGE = `"${PROTO_KEY}" cannot be a name: it is the prototype of a plain object`

/** `record`, refusing an own `__proto__` key of the input (before zod would drop it) with an issue naming it. */
export function withOwnNames<T extends z.ZodType>(record: T) {
  return z
    .unknown()
    .superRefine((value, context) => {
      if (typeof value === "object" && value !== null && Object.hasOwn(value, PROTO_KEY))
        context.addIssue({ code: "custom", path: [PROTO_KEY], message: PROTO_KEY_MESSAGE })
    })
    .pipe(record)
}
