import { z } from "zod"
import type { Info, JSONSchemaObject } from "./tool.js"

type Schema = JSONSchemaObject | PromiseLike<JSONSchemaObject>

/**
 * The JSON schema a model is shown for a tool's parameters: its own, or the parameters'
 * converted. Without `$schema`: it tells the provider nothing, and some providers refuse
 * keywords they do not know.
 */
export function toolInputSchema(info: Pick<Info, "parameters" | "inputSchema">): Schema {
  if (!info.inputSchema)
    return withoutDialect(z.toJSONSchema(info.parameters, { io: "input", unrepresentable: "any" }))
  const schema = info.inputSchema()
  return isPromiseLike(schema) ? Promise.resolve(schema).then(withoutDialect) : withoutDialect(schema)
}

/** A JSON schema without its top-level `$schema` keyword (the dialect it is written in). */
export function withoutDialect(schema: JSONSchemaObject): JSONSchemaObject {
  if (!Object.hasOwn(schema, "$schema")) return schema
  const { $schema: _, ...rest } = schema
  return rest
}

/**
 * Each tool's schema converted once, for as long as its parameters live (a tool described anew
 * for a step, like `task`, is a new object with the same parameters).
 */
export function createSchemaCache() {
  const schemas = new WeakMap<object, Schema>()
  return (info: Pick<Info, "parameters" | "inputSchema">): Schema => {
    const key = info.inputSchema ?? info.parameters
    let schema = schemas.get(key)
    if (schema === undefined) {
      schema = toolInputSchema(info)
      schemas.set(key, schema)
    }
    return schema
  }
}

function isPromiseLike(value: Schema): value is PromiseLike<JSONSchemaObject> {
  return typeof (value as { then?: unknown }).then === "function"
}
