import type { MiddlewareHandler } from "hono/types"
import { type DescribeRouteOptions, describeRoute, resolver } from "hono-openapi"
import { z } from "zod"

/** What the OpenAPI document says of one route; the handler parses with the same schemas. */
export type RouteDoc = {
  /** OpenCode's operation ID where the route is one of OpenCode's, so its generated clients match. */
  operationId: string
  summary: string
  body?: z.ZodType
  query?: z.ZodType
  /** The 200 answer's schema; without one, the route answers 204 with no body. */
  response?: z.ZodType
  /** A streamed answer's media type and what each message holds. */
  stream?: { media: string; schema: z.ZodType }
}

export const ErrorBody = z
  .object({
    name: z.string().meta({ description: "The error's class name, e.g. InvalidInputError" }),
    data: z.record(z.string(), z.unknown()).meta({ description: "Its details; always a `message`" }),
  })
  .meta({ id: "Error" })

const errorResponse = {
  description:
    "`{ name, data }`: 400 bad input, 401 unauthorized, 403 forbidden host, 404 unknown ID, 409 busy, 413 too large",
  content: { "application/json": { schema: resolver(ErrorBody) } },
}

/**
 * hono-openapi's description of a route from its schemas: the body, the query parameters (every
 * route also takes OpenCode's `directory` and `workspace`), the answer and the error answers.
 */
export function documented(doc: RouteDoc): MiddlewareHandler {
  const answer = doc.stream ?? (doc.response && { media: "application/json", schema: doc.response })
  const success: DescribeRouteOptions["responses"] = answer
    ? {
        "200": { description: doc.summary, content: { [answer.media]: { schema: resolver(answer.schema) } } },
      }
    : { "204": { description: doc.summary } }
  return describeRoute({
    operationId: doc.operationId,
    summary: doc.summary,
    parameters: [...locationParameters, ...queryParameters(doc.query)],
    ...(doc.body
      ? { requestBody: { required: true, content: { "application/json": { schema: resolver(doc.body) } } } }
      : {}),
    responses: { ...success, "4XX": errorResponse, "5XX": errorResponse },
  })
}

const locationParameters = ["directory", "workspace"].map((name) => ({
  name,
  in: "query" as const,
  required: false,
  schema: { type: "string" as const },
}))

function queryParameters(query: z.ZodType | undefined) {
  if (!query) return []
  const schema = z.toJSONSchema(query, { io: "input", unrepresentable: "any" }) as {
    properties?: Record<string, object>
    required?: string[]
  }
  return Object.entries(schema.properties ?? {}).map(([name, property]) => ({
    name,
    in: "query" as const,
    required: schema.required?.includes(name) ?? false,
    schema: property,
  }))
}
