import { z } from "zod"
import type { Info, JSONSchemaObject } from "./tool.js"

type Schema = JSONSchemaObject | PromiseLike<JSONSchemaObject>

/** The JSON schema a model is shown for a tool's parameters: its own, or the parameters' converted. */
export function toolInputSchema(info: Pick<Info, "parameters" | "inputSchema">): Schema {
  if (info.inputSchema) return info.inputSchema()
  return z.toJSONSchema(info.parameters, { io: "input", unrepresentable: "any" }) as JSONSchemaObject
}

/** Each tool's schema converted once, for as long as the tool object lives. */
export function createSchemaCache() {
  const schemas = new WeakMap<object, Schema>()
  return (info: Pick<Info, "parameters" | "inputSchema">): Schema => {
    let schema = schemas.get(info)
    if (schema === undefined) {
      schema = toolInputSchema(info)
      schemas.set(info, schema)
    }
    return schema
  }
}
