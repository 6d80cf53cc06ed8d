import { describe, expect, it } from "vitest"
import { z } from "zod"
import { type MessageV2, type Permission, Tool } from "../../src/index.js"
import { say } from "../../src/testing/index.js"
import { turnSetup, user } from "./helpers.js"

const readFile = Tool.define("read", {
  description: "Read a file",
  parameters: z.object({ path: z.string() }),
  async execute({ path }, context) {
    await context.metadata({ title: `Reading ${path}` })
    return {
      title: path,
      output: `contents of ${path}`,
      metadata: { bytes: 11 },
      attachments: [{ mime: "image/png", url: "data:image/png;base64,AA==", filename: "a.png" }],
    }
  },
})

const toolPart = (parts: MessageV2.Part[]) =>
  parts.find((part): part is MessageV2.ToolPart => part.type === "tool")!

describe("SessionProcessor", () => {
  it("stores reasoning and text with start and end times, publishing deltas without writing them", async () => {
    const { processor, stored, writes, events, session } = await turnSetup([
      [
        say.reasoning("Thinking it over", { chunks: 4 }),
        say.text("Hello there.  ", { chunks: 5 }),
        say.usage({ input: 1000, output: 500 }),
      ],
    ])
    expect(await processor.process({ messages: user("hi") })).toBe("continue")
    const { info, parts } = await stored()
    expect(parts.map((part) => part.type)).toEqual(["step-start", "reasoning", "text", "step-finish"])
    const [, reasoning, text, finish] = parts as [
      MessageV2.Part,
      MessageV2.ReasoningPart,
      MessageV2.TextPart,
      MessageV2.StepFinishPart,
    ]
    expect(reasoning.text).toBe("Thinking it over")
    expect(text.text).toBe("Hello there.")
    expect(text.time?.end).toBeGreaterThanOrEqual(text.time!.start)
    expect(reasoning.time.end).toBeDefined()
    expect(finish).toMatchObject({ reason: "stop", cost: 0.0105, tokens: { input: 1000, output: 500 } })
    expect(info).toMatchObject({
      finish: "stop",
      cost: 0.0105,
      tokens: { input: 1000, output: 500, reasoning: 0 },
    })
    expect(info.role === "assistant" && info.time.completed).toBeGreaterThan(0)
    const deltas = events.filter((event) => event.type === "message.part.delta")
    expect(deltas.map((event) => event.properties.delta).join("")).toBe("Thinking it overHello there.  ")
    // Two writes per text part (start, end): deltas never reach storage.
    const textWrites = writes.filter((write) => write.type === "part.put" && write.part.id === text.id)
    expect(textWrites).toHaveLength(2)
    const sessionInfo = events.filter((event) => event.type === "session.updated").at(-1)
    expect(sessionInfo?.properties).toMatchObject({ sessionID: session.id, info: { cost: 0.0105 } })
  })

  it("merges provider metadata that arrives in pieces and publishes no empty delta", async () => {
    const { processor, stored, events } = await turnSetup([
      [
        say.chunk({ type: "reasoning-start", id: "r", providerMetadata: { acme: { itemId: "item_1" } } }),
        say.chunk({ type: "reasoning-delta", id: "r", delta: "Thinking" }),
        say.chunk({
          type: "reasoning-delta",
          id: "r",
          delta: "",
          providerMetadata: { acme: { signature: "sig" } },
        }),
        say.chunk({ type: "reasoning-end", id: "r", providerMetadata: { other: { cached: true } } }),
      ],
    ])
    await processor.process({ messages: user("hi") })
    const reasoning = (await stored()).parts.find((part) => part.type === "reasoning")
    expect(reasoning).toMatchObject({
      text: "Thinking",
      metadata: { acme: { itemId: "item_1", signature: "sig" }, other: { cached: true } },
    })
    const deltas = events.flatMap((event) =>
      event.type === "message.part.delta" ? [event.properties.delta] : [],
    )
    expect(deltas).toEqual(["Thinking"])
  })

  it("runs a tool through its context: pending, running with progress, completed with attachments", async () => {
    const { processor, stored, events } = await turnSetup([
      [say.toolCall("read", { path: "a.ts" }, { id: "call_1" })],
    ])
    const result = await processor.process({ messages: user("read a.ts"), tools: [readFile] })
    expect(result).toBe("continue")
    const { info, parts } = await stored()
    expect(info).toMatchObject({ finish: "tool-calls" })
    const part = toolPart(parts)
    expect(part).toMatchObject({ callID: "call_1", tool: "read" })
    expect(part.state).toMatchObject({
      status: "completed",
      input: { path: "a.ts" },
      output: "contents of a.ts",
      title: "a.ts",
      metadata: { bytes: 11 },
    })
    const state = part.state as MessageV2.ToolStateCompleted
    expect(state.attachments?.[0]).toMatchObject({
      type: "file",
      mime: "image/png",
      messageID: info.id,
      sessionID: info.sessionID,
    })
    expect(state.attachments?.[0]?.id).toMatch(/^prt_/)
    const statuses = events.flatMap((event) =>
      event.type === "message.part.updated" && event.properties.part.type === "tool"
        ? [event.properties.part.state.status]
        : [],
    )
    expect(statuses[0]).toBe("pending")
    expect(statuses.at(-1)).toBe("completed")
    expect(statuses).toContain("running")
  })

  it("turns invalid arguments into a tool error that tells the model what to fix", async () => {
    const { processor, stored } = await turnSetup([[say.toolCall("read", { file: "a.ts" })]])
    expect(await processor.process({ messages: user("read"), tools: [readFile] })).toBe("continue")
    const state = toolPart((await stored()).parts).state
    expect(state.status).toBe("error")
    expect(state.status === "error" && state.error).toContain(
      "The read tool was called with invalid arguments",
    )
    expect(state.status === "error" && state.error).toContain("path")
  })

  it("records a tool that throws as an error and carries on", async () => {
    const failing = Tool.define("fail", {
      description: "Always fails",
      parameters: z.object({}),
      async execute() {
        throw new Error("disk on fire")
      },
    })
    const { processor, stored } = await turnSetup([[say.toolCall("fail", {})]])
    expect(await processor.process({ messages: user("go"), tools: [failing] })).toBe("continue")
    expect(toolPart((await stored()).parts).state).toMatchObject({ status: "error", error: "disk on fire" })
  })

  it("feeds a denial back to the model but stops on a rejection", async () => {
    const bash = Tool.define("bash", {
      description: "Run a command",
      parameters: z.object({ command: z.string() }),
      async execute({ command }, context) {
        await context.ask({ permission: "bash", patterns: [command] })
        return { title: command, output: "ok", metadata: {} }
      },
    })
    const ruleset: Permission.Ruleset = [
      { permission: "bash", pattern: "*", action: "ask" },
      { permission: "bash", pattern: "rm *", action: "deny" },
    ]
    const denied = await turnSetup([[say.toolCall("bash", { command: "rm -rf /" })]])
    expect(await denied.processor.process({ messages: user("x"), tools: [bash], ruleset })).toBe("continue")
    expect(toolPart((await denied.stored()).parts).state).toMatchObject({ status: "error" })
    expect((toolPart((await denied.stored()).parts).state as MessageV2.ToolStateError).error).toContain(
      'bash "rm *" -> deny',
    )

    const rejected = await turnSetup([[say.toolCall("bash", { command: "make" })]], {
      onPermission: () => "reject",
    })
    expect(await rejected.processor.process({ messages: user("x"), tools: [bash], ruleset })).toBe("stop")
    const state = toolPart((await rejected.stored()).parts).state as MessageV2.ToolStateError
    // The handler is the host's: the model is told the application said no.
    expect(state.error).toBe("The application rejected permission to use this specific tool call.")
    expect(state.refusedBy).toBe("host")
  })
})
