import { asSchema } from "ai"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { Tool } from "../../src/index.js"
import { createTestRuntime, say } from "../../src/testing/index.js"
import { toAITools } from "../../src/tool/ai-tools.js"

const lookup = Tool.define("lookup", {
  description: "Looks a word up",
  parameters: z.object({ word: z.string() }),
  async execute({ word }) {
    return { title: word, output: word, metadata: {} }
  },
})

const schemasSent = (tools: { name: string; inputSchema?: unknown }[] | undefined) =>
  Object.fromEntries((tools ?? []).map((tool) => [tool.name, tool.inputSchema as Record<string, unknown>]))

describe("the input schemas sent to the provider", () => {
  it("leave out $schema for zod tools and for StructuredOutput", async () => {
    const { runtime, model } = createTestRuntime({
      tools: [lookup],
      task: true,
      turns: [[say.toolCall("StructuredOutput", { answer: "yes" })]],
    })
    const session = await runtime.session.create()
    await runtime.session.prompt({
      sessionID: session.id,
      parts: [{ type: "text", text: "answer" }],
      format: {
        type: "json_schema",
        schema: {
          $schema: "https://json-schema.org/draft/2020-12/schema",
          type: "object",
          properties: { answer: { type: "string" } },
          required: ["answer"],
        },
      },
    })
    const sent = schemasSent(model.calls[0]?.tools as { name: string; inputSchema?: unknown }[])
    expect(Object.keys(sent)).toEqual(expect.arrayContaining(["lookup", "StructuredOutput", "task"]))
    for (const [name, schema] of Object.entries(sent)) {
      expect(schema, name).not.toHaveProperty("$schema")
      expect(schema.type, name).toBe("object")
    }
    expect(sent.lookup?.properties).toEqual({ word: { type: "string" } })
  })

  it("leave out $schema in the AI SDK tools made of ours", async () => {
    const set = toAITools([lookup], () => {
      throw new Error("no call runs here")
    })
    const schema = await asSchema(set.lookup!.inputSchema).jsonSchema
    expect(schema).not.toHaveProperty("$schema")
    expect(schema).toMatchObject({ type: "object", properties: { word: { type: "string" } } })
  })
})
