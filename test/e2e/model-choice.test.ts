import { describe, expect, it } from "vitest"
import { createProvider, createRuntime, type MessageV2, Permission } from "../../src/index.js"
import { MemoryStorage } from "../../src/storage/memory.js"
import { type ScriptedModel, say, scriptedModel, testModelInfo } from "../../src/testing/index.js"

/** Three scripted models on one provider: each answers with its own name, so an answer says who ran. */
function threeModels(options: Parameters<typeof createRuntime>[0] = {}) {
  const models: Record<string, ScriptedModel> = {}
  const entries = ["a", "b", "c"].map((id) => {
    const language = scriptedModel([], { modelId: id, fallback: answerAs(id) })
    models[id] = language
    return {
      providerID: "p",
      modelID: id,
      language,
      info: { ...testModelInfo, providerID: "p", id, name: id },
    }
  })
  const provider = createProvider({ models: entries, default: { providerID: "p", modelID: "c" } })
  const runtime = createRuntime({ storage: new MemoryStorage(), titles: false, ...options, provider })
  return { runtime, models }
}

/** Answers with the model's name; a parent (asked "delegate") hands the work to `helper` first. */
function answerAs(id: string) {
  return (call: { prompt: { role: string; content: unknown }[] }) => {
    const text = JSON.stringify(call.prompt)
    if (text.includes("delegate") && !text.includes("tool-result"))
      return [say.toolCall("task", { description: "Help", prompt: "help me", subagent_type: "helper" })]
    return [say.text(`answered by ${id}`)]
  }
}

const ref = (modelID: string) => ({ providerID: "p", modelID })
const text = (message: MessageV2.WithParts) =>
  message.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("")

describe("which model runs a prompt", () => {
  it("takes the prompt's model over the agent's, and the agent's when the prompt names none", async () => {
    const { runtime } = threeModels({ agents: { build: { model: ref("a") } } })
    const session = await runtime.session.create()
    const named = await runtime.session.prompt({
      sessionID: session.id,
      model: ref("b"),
      parts: [{ type: "text", text: "hi" }],
    })
    expect(text(named)).toBe("answered by b")
    const unnamed = await runtime.session.prompt({
      sessionID: session.id,
      parts: [{ type: "text", text: "again" }],
    })
    expect(text(unnamed)).toBe("answered by a")
  })

  it("goes on with the model the session last used when neither the prompt nor the agent names one", async () => {
    const { runtime } = threeModels()
    const session = await runtime.session.create()
    await runtime.session.prompt({
      sessionID: session.id,
      model: ref("b"),
      parts: [{ type: "text", text: "hi" }],
    })
    const next = await runtime.session.prompt({
      sessionID: session.id,
      parts: [{ type: "text", text: "again" }],
    })
    expect(text(next)).toBe("answered by b")
    expect(next.info).toMatchObject({ providerID: "p", modelID: "b" })
    const fresh = await runtime.session.create()
    const first = await runtime.session.prompt({ sessionID: fresh.id, parts: [{ type: "text", text: "hi" }] })
    expect(text(first)).toBe("answered by c")
  })
})

describe("which model runs a sub-agent", () => {
  const helper = (model?: string) => ({
    mode: "subagent" as const,
    description: "Helps",
    permission: Permission.fromConfig({ "*": "allow" }),
    ...(model ? { model: ref(model) } : {}),
  })

  it("runs the task tool's sub-agent on its own model, whatever the caller's prompt named", async () => {
    const { runtime, models } = threeModels({ agents: { helper: helper("a") } })
    const session = await runtime.session.create()
    await runtime.session.prompt({
      sessionID: session.id,
      model: ref("b"),
      parts: [{ type: "text", text: "delegate" }],
    })
    expect(models.a!.calls).toHaveLength(1)
    expect(models.b!.calls).toHaveLength(2)
    const [child] = await runtime.session.children(session.id)
    const [, answer] = await runtime.session.messages(child!.id)
    expect(answer!.info).toMatchObject({ modelID: "a" })
  })

  it("runs a subtask part's sub-agent on its own model, not the part's", async () => {
    const { runtime, models } = threeModels({ agents: { helper: helper("a") } })
    const session = await runtime.session.create()
    await runtime.session.prompt({
      sessionID: session.id,
      model: ref("c"),
      parts: [{ type: "subtask", prompt: "help me", description: "Help", agent: "helper", model: ref("b") }],
    })
    // The sub-agent's one answer on a; the parent's answer after the subtask on c.
    expect(models.a!.calls).toHaveLength(1)
    expect(models.b!.calls).toHaveLength(0)
    expect(models.c!.calls).toHaveLength(1)
  })

  it("runs a sub-agent without a model on the caller's", async () => {
    const { runtime, models } = threeModels({ agents: { helper: helper() } })
    const session = await runtime.session.create()
    await runtime.session.prompt({
      sessionID: session.id,
      model: ref("b"),
      parts: [{ type: "text", text: "delegate" }],
    })
    expect(models.b!.calls).toHaveLength(3)
    expect(models.a!.calls).toHaveLength(0)
  })
})

describe("which model runs a command", () => {
  it("takes the command's model, else its agent's, over the caller's", async () => {
    const { runtime } = threeModels({
      agents: {
        reviewer: { mode: "primary", model: ref("a"), permission: Permission.fromConfig({ "*": "allow" }) },
      },
      commands: {
        pinned: { template: "pinned $ARGUMENTS", model: ref("b") },
        review: { template: "review $ARGUMENTS", agent: "reviewer" },
      },
    })
    const session = await runtime.session.create()
    const pinned = await runtime.session.command({
      sessionID: session.id,
      command: "pinned",
      model: ref("c"),
    })
    expect(text(pinned)).toBe("answered by b")
    const review = await runtime.session.command({
      sessionID: session.id,
      command: "review",
      model: ref("c"),
    })
    expect(text(review)).toBe("answered by a")
  })
})
