import { describe, expect, it } from "vitest"
import { Agent } from "../../src/agent/index.js"
import { UnknownCommandError } from "../../src/command/errors.js"
import type { CommandInfo } from "../../src/command/info.js"
import { createCommandRunner } from "../../src/command/run.js"
import { InvalidInputError } from "../../src/error/index.js"
import { ascending } from "../../src/id/identifier.js"
import type { MessageV2 } from "../../src/message/index.js"
import type { PromptInput } from "../../src/schema/prompt.js"

const sessionID = ascending("session")
const answer = { info: { id: "answer" }, parts: [] } as unknown as MessageV2.WithParts
const sonnet = { providerID: "anthropic", modelID: "claude-sonnet-4-5" }
const haiku = { providerID: "anthropic", modelID: "claude-haiku-4-5" }

function setup(commands: Record<string, CommandInfo>) {
  const prompts: PromptInput[] = []
  const runner = createCommandRunner({
    commands,
    agents: Agent.resolveAgents(Agent.codingAgents()),
    defaultAgent: () => "build",
    async prompt(input) {
      prompts.push(input)
      return answer
    },
  })
  return { prompts, command: runner.command }
}

describe("createCommandRunner: command", () => {
  it("prompts the session with the expanded template as one text part, and returns the answer", async () => {
    const { prompts, command } = setup({ review: { template: "Review $1 for $2" } })
    const result = await command({ sessionID, command: "review", arguments: "src/a.ts bugs and style" })
    expect(result).toBe(answer)
    expect(prompts).toEqual([
      { sessionID, agent: "build", parts: [{ type: "text", text: "Review src/a.ts for bugs and style" }] },
    ])
  })

  it("passes the messageID through", async () => {
    const { prompts, command } = setup({ hi: { template: "hi" } })
    const messageID = ascending("message")
    await command({ sessionID, command: "hi", messageID })
    expect(prompts[0]?.messageID).toBe(messageID)
  })

  it("runs with the command's agent and model over the caller's", async () => {
    const { prompts, command } = setup({ plan: { template: "Plan it", agent: "plan", model: sonnet } })
    await command({ sessionID, command: "plan", agent: "build", model: haiku })
    expect(prompts[0]).toMatchObject({ agent: "plan", model: sonnet })
  })

  it("falls back to the caller's agent and model, then to the default agent and the prompt's model", async () => {
    const { prompts, command } = setup({ hi: { template: "hi" } })
    await command({ sessionID, command: "hi", agent: "plan", model: haiku })
    await command({ sessionID, command: "hi" })
    expect(prompts[0]).toMatchObject({ agent: "plan", model: haiku })
    expect(prompts[1]?.agent).toBe("build")
    expect(prompts[1]).not.toHaveProperty("model")
  })

  it("runs a subtask command as one subtask part that the caller's agent hands on", async () => {
    const { prompts, command } = setup({
      audit: {
        template: "Audit $ARGUMENTS",
        description: "Audit files",
        agent: "general",
        subtask: true,
        model: sonnet,
      },
    })
    await command({ sessionID, command: "audit", arguments: "src", agent: "plan", model: haiku })
    expect(prompts).toEqual([
      {
        sessionID,
        agent: "plan",
        model: haiku,
        parts: [
          {
            type: "subtask",
            prompt: "Audit src",
            description: "Audit files",
            agent: "general",
            model: sonnet,
          },
        ],
      },
    ])
  })

  it("runs a sub-agent's command as a subtask even without subtask: true, named after the command", async () => {
    const { prompts, command } = setup({ find: { template: "Find $1", agent: "explore" } })
    await command({ sessionID, command: "find", arguments: "parser" })
    expect(prompts[0]).toEqual({
      sessionID,
      agent: "build",
      parts: [{ type: "subtask", prompt: "Find parser", description: "find", agent: "explore" }],
    })
  })

  it("runs a sub-agent's command inline when subtask is false", async () => {
    const { prompts, command } = setup({ find: { template: "Find $1", agent: "explore", subtask: false } })
    await command({ sessionID, command: "find", arguments: "parser" })
    expect(prompts[0]).toMatchObject({ agent: "explore", parts: [{ type: "text", text: "Find parser" }] })
  })

  it("runs a subtask command without an agent with the caller's agent as the sub-agent", async () => {
    const { prompts, command } = setup({ bg: { template: "Do it", subtask: true } })
    await command({ sessionID, command: "bg" })
    expect(prompts[0]).toMatchObject({ agent: "build", parts: [{ type: "subtask", agent: "build" }] })
  })

  it("refuses an unknown command with a named error listing the known ones", async () => {
    const { prompts, command } = setup({ review: { template: "r" }, plan: { template: "p" } })
    const error = await command({ sessionID, command: "reveiw" }).catch((caught: unknown) => caught)
    expect(UnknownCommandError.isInstance(error)).toBe(true)
    expect((error as UnknownCommandError).toObject()).toEqual({
      name: "UnknownCommandError",
      data: {
        command: "reveiw",
        known: ["review", "plan"],
        message: 'Unknown command "reveiw". Known commands: review, plan',
      },
    })
    expect(UnknownCommandError.Schema.parse((error as UnknownCommandError).toObject())).toBeTruthy()
    expect(prompts).toEqual([])
  })

  it("does not take an object's inherited keys for commands", async () => {
    const { command } = setup({})
    await expect(command({ sessionID, command: "toString" })).rejects.toThrow(/Known commands: none/)
  })

  it("refuses a command whose agent does not exist before prompting", async () => {
    const { prompts, command } = setup({ x: { template: "x", agent: "nobody" } })
    await expect(command({ sessionID, command: "x" })).rejects.toSatisfy((error) =>
      Agent.UnknownAgentError.isInstance(error),
    )
    expect(prompts).toEqual([])
  })

  it("names the field of bad input", async () => {
    const { command } = setup({ hi: { template: "hi" } })
    const bad = [
      { sessionID: "nope", command: "hi" },
      { sessionID, command: "" },
      { sessionID, command: "hi", arguments: 3 },
      { sessionID, command: "hi", extra: true },
    ]
    const paths = ["sessionID", "command", "arguments", "(root)"]
    for (const [index, input] of bad.entries()) {
      const error = await command(input as never).catch((caught: unknown) => caught)
      expect(InvalidInputError.isInstance(error)).toBe(true)
      expect((error as InvalidInputError).data.issues[0]?.path).toBe(paths[index])
    }
  })

  it("refuses bad command definitions when created", () => {
    const create = (commands: unknown) =>
      createCommandRunner({
        commands: commands as Record<string, CommandInfo>,
        agents: {},
        defaultAgent: () => "build",
        prompt: async () => answer,
      })
    expect(() => create({ review: { template: "" } })).toThrow(/review\.template/)
    expect(() => create({ review: { templte: "x", template: "y" } })).toThrow(/templte/)
  })
})
