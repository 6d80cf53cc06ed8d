import { z } from "zod"
import { unstorable } from "../tool/storable.js"

/**
 * A JSON schema as a plain object (draft 2020-12 or 7, as `z.toJSONSchema` writes them). Typed
 * loosely so that JSON schema types from other libraries fit; checked to be plain JSON, since
 * it is stored with the message.
 */
export const JsonSchemaObject = z.record(z.string(), z.unknown()).superRefine((schema, context) => {
  const problem = unstorable(schema, "schema")
  if (problem) context.addIssue({ code: "custom", message: `not JSON: ${problem}` })
})

/**
 * What shape the answer to a prompt takes: free text (the default), or an object matching a JSON
 * schema, which the model gives by calling the `StructuredOutput` tool. A call whose arguments
 * fail the schema goes back to the model with the problems; after `retries` such failures
 * (default 2) the answer fails with a StructuredOutputError.
 */
export const OutputFormat = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("text") }),
  z.strictObject({
    type: z.literal("json_schema"),
    schema: JsonSchemaObject,
    retries: z.number().int().min(0).max(10).optional(),
  }),
])
export type OutputFormat = z.infer<typeof OutputFormat>
