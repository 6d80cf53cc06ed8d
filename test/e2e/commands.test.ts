import { describe, expect, it } from "vitest"
import { Agent, Command, type MessageV2 } from "../../src/index.js"
import { createTestRuntime, say } from "../../src/testing/index.js"

const commands: Record<string, Command.Info> = {
  review: { template: "Review $1, looking at $2", description: "Review a file", agent: "plan" },
  find: { template: "Find $ARGUMENTS", description: "Find code", agent: "explore" },
}

const texts = (message: MessageV2.WithParts) =>
  message.parts.flatMap((part) => (part.type === "text" ? [part.text] : []))

describe("runtime.session.command", () => {
  it("expands the arguments and prompts with the command's agent", async () => {
    const { runtime, model } = createTestRuntime({
      commands,
      agents: Agent.codingAgents(),
      turns: [[say.text("Looks fine.")]],
    })
    const session = await runtime.session.create({ title: "commands" })
    const answer = await runtime.session.command({
      sessionID: session.id,
      command: "review",
      arguments: 'src/parser.ts "error handling and speed"',
    })
    expect(texts(answer)).toEqual(["Looks fine."])
    const [user] = await runtime.session.messages(session.id)
    expect(texts(user!)).toEqual(["Review src/parser.ts, looking at error handling and speed"])
    expect(user!.info).toMatchObject({ role: "user", agent: "plan" })
    expect(JSON.stringify(model.calls[0]!.prompt)).toContain(
      "Review src/parser.ts, looking at error handling and speed",
    )
  })

  it("runs a command whose agent is a sub-agent as a subtask in the caller's turn", async () => {
    const { runtime } = createTestRuntime({
      commands,
      agents: Agent.codingAgents(),
      turns: [[say.text("The parser is in src/parser.ts.")], [say.text("It is in src/parser.ts.")]],
    })
    const session = await runtime.session.create({ title: "commands" })
    const answer = await runtime.session.command({
      sessionID: session.id,
      command: "find",
      arguments: "the parser",
    })
    expect(texts(answer)).toEqual(["It is in src/parser.ts."])
    const [user, task] = await runtime.session.messages(session.id)
    expect(user!.parts[0]).toMatchObject({ type: "subtask", agent: "explore", prompt: "Find the parser" })
    expect(task!.parts[0]).toMatchObject({ type: "tool", tool: "task", state: { status: "completed" } })
    const [child] = await runtime.session.children(session.id)
    expect(texts((await runtime.session.messages(child!.id))[0]!)).toEqual(["Find the parser"])
  })

  it("names an unknown command and stores nothing", async () => {
    const { runtime } = createTestRuntime({ commands, agents: Agent.codingAgents(), turns: [] })
    const session = await runtime.session.create({ title: "commands" })
    const error = await runtime.session.command({ sessionID: session.id, command: "deploy" }).catch((e) => e)
    expect(Command.UnknownCommandError.isInstance(error)).toBe(true)
    expect(error.message).toContain("Known commands: review, find")
    expect(await runtime.session.messages(session.id)).toEqual([])
  })

  it("expand is a pure function", () => {
    expect(Command.expand("Fix $1 then $2", "a.ts b.ts c.ts")).toBe("Fix a.ts then b.ts c.ts")
  })
})
