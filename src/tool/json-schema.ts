import { z } from "zod"
import type { Info } from "./tool.js"

/** The JSON schema a model is shown for a tool's parameters. */
export function toolInputSchema(info: Pick<Info, "parameters">): Record<string, unknown> {
  return z.toJSONSchema(info.parameters, { io: "input", unrepresentable: "any" }) as Record<string, unknown>
}

/** Each tool's schema converted once, for as long as the tool object lives. */
export function createSchemaCache() {
  const schemas = new WeakMap<object, Record<string, unknown>>()
  return (info: Pick<Info, "parameters">): Record<string, unknown> => {
    let schema = schemas.get(info)
    if (schema === undefined) {
      schema = toolInputSchema(info)
      schemas.set(info, schema)
    }
    return schema
  }
}
