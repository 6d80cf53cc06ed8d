import { describe, expect, it } from "vitest"
import { z } from "zod"
import { createRuntime, InvalidInputError, Permission, Tool } from "../../src/index.js"

const echo = Tool.define("echo", {
  description: "Echo the text",
  parameters: z.object({ text: z.string(), times: z.number().int().positive().default(1) }),
  async execute({ text, times }) {
    return { title: "echo", output: text.repeat(times), metadata: { times } }
  },
})

const noop = (id: string) =>
  Tool.define(id, {
    description: id,
    parameters: z.object({}),
    execute: async () => ({ title: id, output: "", metadata: {} }),
  })

const context: Tool.Context = {
  sessionID: "ses_x",
  messageID: "msg_x",
  callID: "call_1",
  agent: "build",
  abort: new AbortController().signal,
  metadata: async () => {},
  ask: async () => {},
}

describe("Tool.define", () => {
  it("refuses a malformed definition, naming the field", () => {
    expect(() => Tool.define("has space", { ...echo, parameters: echo.parameters })).toThrow(
      InvalidInputError,
    )
    const error = (() => {
      try {
        Tool.define("ok", { description: "", parameters: z.object({}), execute: echo.execute as never })
      } catch (caught) {
        return caught as InvalidInputError
      }
    })()
    expect(error?.data.issues[0]?.path).toBe("description")
  })
})

describe("Tool.truncateOutput", () => {
  it("keeps small outputs whole", () => {
    expect(Tool.truncateOutput("a\nb")).toEqual({ output: "a\nb", truncated: false })
  })

  it("cuts by lines and says how much was cut", () => {
    const output = Array.from({ length: 2_500 }, (_, index) => `line ${index}`).join("\n")
    const cut = Tool.truncateOutput(output)
    expect(cut.truncated).toBe(true)
    expect(cut.output.split("\n").slice(0, 2_000).at(-1)).toBe("line 1999")
    expect(cut.output).toContain("[Output truncated: 500 more line(s)")
  })

  it("cuts by bytes", () => {
    const cut = Tool.truncateOutput("x".repeat(100), { maxBytes: 10 })
    expect(cut.output.startsWith("[Output truncated: 1 more line(s), 100 byte(s)")).toBe(false)
    expect(cut.output).toContain("90 byte(s) not shown")
    const lines = Tool.truncateOutput("aaaa\nbbbb\ncccc", { maxBytes: 10 })
    expect(lines.output.startsWith("aaaa\nbbbb\n\n[Output truncated: 1 more line(s), 5 byte(s)")).toBe(true)
  })

  it("keeps the first bytes of one long line", () => {
    // Minified JSON is one line; cutting at line boundaries alone would show the model nothing.
    expect(Tool.truncateOutput("a".repeat(1000), { maxBytes: 100 })).toEqual({
      output: "a".repeat(100) + note(0, 900),
      truncated: true,
    })
  })

  it("keeps the first bytes of a first line longer than the budget, and none of the lines after it", () => {
    const cut = Tool.truncateOutput(`${"x".repeat(50)}\nshort\nlines`, { maxBytes: 20 })
    expect(cut.output).toBe("x".repeat(20) + note(2, 42))
  })

  it("cuts a long line at a UTF-8 character boundary", () => {
    // "é" is two bytes and "€" three: a budget ending inside one keeps only the characters before it.
    expect(Tool.truncateOutput("é".repeat(100), { maxBytes: 11 }).output).toBe("é".repeat(5) + note(0, 190))
    expect(Tool.truncateOutput("€".repeat(100), { maxBytes: 10 }).output).toBe("€".repeat(3) + note(0, 291))
    expect(Tool.truncateOutput("€".repeat(100), { maxBytes: 2 }).output).toBe(note(0, 300))
  })
})

const note = (lines: number, bytes: number) =>
  `\n\n[Output truncated: ${lines} more line(s), ${bytes} byte(s) not shown. Narrow the request (a smaller range, a filter) to see the rest.]`

describe("Tool registry", () => {
  it("filters tools by the rules and by the prompt's switches; a later tool replaces an earlier one", async () => {
    const replacement = Tool.define("bash", { ...noop("bash"), description: "replaced" })
    const runtime = createRuntime({
      tools: [noop("bash"), noop("edit"), noop("write"), noop("read"), replacement],
      question: true,
      task: true,
      todos: true,
    })
    expect(runtime.tools.get("bash")?.description).toBe("replaced")
    const ruleset = Permission.fromConfig({ edit: "deny" })
    const ids = (tools: Tool.Info[]) => tools.map((tool) => tool.id)
    // The built-in question, task and todo tools come first.
    const builtins = ["question", "task", "todowrite", "todoread"]
    expect(ids(runtime.tools.enabled({ ruleset }))).toEqual([...builtins, "bash", "read"])
    expect(ids(runtime.tools.enabled({ ruleset: [], switches: { read: false, question: false } }))).toEqual([
      ...builtins.slice(1),
      "bash",
      "edit",
      "write",
    ])
    await runtime.close()
  })
})

// ai 6 and ai 7 type the SDK's execution options differently; the tools read only toolCallId.
const options = { toolCallId: "c", messages: [] } as never

describe("AI SDK tools", () => {
  it("validate arguments, apply defaults and truncate the output", async () => {
    const result = await Tool.toAITools([echo], () => context).echo?.execute?.(
      { text: "hi" } as never,
      options,
    )
    expect(result).toEqual({ title: "echo", output: "hi", metadata: { times: 1 } })
  })

  it("turn invalid arguments into an error that tells the model what to fix", async () => {
    const run = Tool.toAITools([echo], () => context).echo?.execute?.({ text: 5 } as never, options)
    await expect(run).rejects.toSatisfy((error) => Tool.InvalidToolArgumentsError.isInstance(error))
    await expect(run).rejects.toThrow(/The echo tool was called with invalid arguments:\n- text: /)
  })

  it("describe parameters to the model as JSON schema", () => {
    const schema = Tool.toAITools([echo], () => context).echo?.inputSchema as {
      jsonSchema: { required?: string[] }
    }
    expect(schema.jsonSchema.required).toEqual(["text"])
  })
})
