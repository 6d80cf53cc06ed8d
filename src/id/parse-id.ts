import { z } from "zod"
import { parseInput } from "../error/invalid-input.js"
import { schema as id, type Kind } from "./identifier.js"

/** Validates one ID argument, naming `field` in the error. */
export function parseID(field: string, kind: Kind, value: unknown): string {
  return parseInput(field, z.object({ [field]: id(kind) }), { [field]: value })[field] as string
}
