import { InvalidInputError } from "../error/invalid-input.js"
import { quote } from "../error/quote.js"
import { isID, type Kind } from "./identifier.js"

/**
 * Validates one ID argument, naming `field` in the error. A plain check, not a zod schema built
 * per call: this runs several times per loop step.
 */
export function parseID(field: string, kind: Kind, value: unknown): string {
  if (isID(kind, value)) return value
  const message = `expected a ${kind} ID, got ${quote(value)}`
  throw new InvalidInputError({ message: `Invalid ${field}: ${message}`, issues: [{ path: field, message }] })
}
