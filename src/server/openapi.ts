import { z } from "zod"
import { VERSION } from "../version.js"
import { type RouteSpec, routes } from "./route-specs.js"

type JSONSchema = Record<string, unknown>
type Operation = Record<string, unknown>

const ErrorBody = z.object({
  name: z.string().meta({ description: "The error's class name, e.g. InvalidInputError" }),
  data: z.record(z.string(), z.unknown()).meta({ description: "Its details; always a `message`" }),
})

/**
 * The OpenAPI 3.1 document of every route, from the schemas the handlers parse with. Built per
 * request: it is asked for rarely, and a cache would be state to keep.
 */
export function openAPIDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, Operation>> = {}
  for (const [operationId, spec] of Object.entries(routes) as [string, RouteSpec][]) {
    const path = spec.path.replace(/:(\w+)/g, "{$1}")
    paths[path] = { ...paths[path], [spec.method]: operation(operationId, spec) }
  }
  return {
    openapi: "3.1.0",
    info: { title: "agentloop", version: VERSION },
    paths,
    components: { schemas: { Error: jsonSchema(ErrorBody) } },
  }
}

function operation(operationId: string, spec: RouteSpec): Operation {
  const parameters = [...pathParameters(spec.path), ...queryParameters(spec.query)]
  const { status, description, schema } = spec.response
  const content = schema ? { content: { "application/json": { schema: jsonSchema(schema, "output") } } } : {}
  const error = {
    description: "`{ name, data }`: 400 bad input, 401 unauthorized, 404 unknown ID, 409 busy, 413 too large",
    content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
  }
  return {
    operationId,
    summary: spec.summary,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(spec.body
      ? {
          requestBody: { required: true, content: { "application/json": { schema: jsonSchema(spec.body) } } },
        }
      : {}),
    responses: { [String(status)]: { description, ...content }, "4XX": error, "5XX": error },
  }
}

function pathParameters(path: string) {
  return [...path.matchAll(/:(\w+)/g)].map(([, name]) => ({
    name,
    in: "path",
    required: true,
    schema: { type: "string" },
  }))
}

function queryParameters(query: z.ZodType | undefined) {
  if (!query) return []
  const schema = jsonSchema(query) as { properties?: Record<string, JSONSchema>; required?: string[] }
  return Object.entries(schema.properties ?? {}).map(([name, property]) => ({
    name,
    in: "query",
    required: schema.required?.includes(name) ?? false,
    schema: property,
  }))
}

/** A schema as JSON Schema (2020-12, which OpenAPI 3.1 uses): requests as sent, responses as answered. */
function jsonSchema(schema: z.ZodType, io: "input" | "output" = "input"): JSONSchema {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JSONSchema
  return rest
}
