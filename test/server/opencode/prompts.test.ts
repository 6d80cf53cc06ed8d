import { tmpdir } from "node:os"
import { describe, expect, it } from "vitest"
import { say } from "../../../src/testing/index.js"
import { codingTools } from "../../../src/tools/index.js"
import { answer, eventually, refusal, startServer, testModel, textOf } from "./helpers.js"

const hello = (text: string) => ({ parts: [{ type: "text" as const, text }] })

describe("prompts through OpenCode's SDK clients", () => {
  it("session.prompt answers the assistant's { info, parts } once the turn is over", async () => {
    const { v2, older } = await startServer({
      turns: [[say.text("Hello from the script")], [say.text("Again")]],
    })
    const { id } = await answer("session.create", v2.session.create({}))
    const result = await answer("session.prompt", v2.session.prompt({ sessionID: id, ...hello("Hi") }))
    expect(result.info).toMatchObject({ role: "assistant", sessionID: id, mode: "build", agent: "build" })
    expect(textOf(result)).toBe("Hello from the script")

    const again = await answer(
      "session.prompt",
      older.session.prompt({ path: { id }, body: { ...hello("Hi again"), model: testModel } }),
    )
    expect(textOf(again)).toBe("Again")
  })

  it("session.prompt_async answers 204 once the prompt is stored, and the run follows", async () => {
    const { v2, older, runtime } = await startServer({
      turns: [[say.text("Async answer")], [say.text("Older")]],
    })
    const { id } = await answer("session.create", v2.session.create({}))
    await answer("session.prompt_async", v2.session.promptAsync({ sessionID: id, ...hello("Go") }))
    await eventually(() => runtime.session.status(id).type === "idle")
    const messages = await answer("session.messages", v2.session.messages({ sessionID: id }))
    expect(messages.map(textOf)).toEqual(["Go", "Async answer"])

    await answer("session.prompt_async", older.session.promptAsync({ path: { id }, body: hello("Go on") }))
    await eventually(() => runtime.session.status(id).type === "idle")
    expect((await runtime.session.messages(id)).length).toBe(4)
  })

  it("session.command runs a slash command, its model named as 'provider/model'", async () => {
    const { v2, older, model } = await startServer({
      commands: { review: { template: "Review $ARGUMENTS carefully", description: "Review a file" } },
      turns: [[say.text("Reviewed")], [say.text("Reviewed again")]],
    })
    const { id } = await answer("session.create", v2.session.create({}))
    const model_ = `${testModel.providerID}/${testModel.modelID}`
    const result = await answer(
      "session.command",
      v2.session.command({ sessionID: id, command: "review", arguments: "a.ts", model: model_ }),
    )
    expect(result.info.role).toBe("assistant")
    expect(textOf(result)).toBe("Reviewed")
    expect(JSON.stringify(model.calls[0]?.prompt)).toContain("Review a.ts carefully")

    const again = await answer(
      "session.command",
      older.session.command({ path: { id }, body: { command: "review", arguments: "b.ts" } }),
    )
    expect(textOf(again)).toBe("Reviewed again")
  })

  it("session.shell runs a command and answers the message it made", async () => {
    const { v2 } = await startServer({ tools: codingTools({ directory: tmpdir() }) })
    const { id } = await answer("session.create", v2.session.create({}))
    const result = await answer(
      "session.shell",
      v2.session.shell({ sessionID: id, agent: "build", command: "echo hi" }),
    )
    expect(result.info.role).toBe("assistant")
    const tool = result.parts.find((part) => part.type === "tool")
    expect(tool?.type === "tool" && tool.state.status === "completed" ? tool.state.output : tool).toContain(
      "hi",
    )
  })

  it("session.summarize compacts the session and answers true", async () => {
    const { v2, runtime } = await startServer({
      turns: [[say.text("Long answer")], [say.text("## Goal\nSay hello")]],
    })
    const { id } = await answer("session.create", v2.session.create({}))
    await answer("session.prompt", v2.session.prompt({ sessionID: id, ...hello("Hi") }))
    expect(await answer("session.summarize", v2.session.summarize({ sessionID: id, ...testModel }))).toBe(
      true,
    )
    const messages = await runtime.session.messages(id)
    expect(
      messages.some((message) => message.info.role === "assistant" && message.info.summary === true),
    ).toBe(true)
  })

  it("session.abort answers true and the turn ends with MessageAbortedError", async () => {
    const { v2, older, runtime } = await startServer({
      turns: [
        [say.text("Working"), say.delay(600_000)],
        [say.text("Still working"), say.delay(600_000)],
      ],
    })
    const { id } = await answer("session.create", v2.session.create({}))
    await answer(
      "session.prompt_async",
      v2.session.promptAsync({ sessionID: id, ...hello("Take your time") }),
    )
    await eventually(() => runtime.session.status(id).type === "busy")
    expect(await answer("session.status", v2.session.status())).toEqual({ [id]: { type: "busy" } })
    expect(await answer("session.abort", v2.session.abort({ sessionID: id }))).toBe(true)
    await eventually(() => runtime.session.status(id).type === "idle")
    const last = (await answer("session.messages", v2.session.messages({ sessionID: id }))).at(-1)!
    expect(last.info.role === "assistant" ? last.info.error?.name : last.info.role).toBe(
      "MessageAbortedError",
    )
    expect(await answer("session.status", v2.session.status())).toEqual({})

    await answer("session.prompt_async", older.session.promptAsync({ path: { id }, body: hello("Again") }))
    await eventually(() => runtime.session.status(id).type === "busy")
    expect(await answer("session.abort", older.session.abort({ path: { id } }))).toBe(true)
    await eventually(() => runtime.session.status(id).type === "idle")
  })

  it("refuses a prompt to an unknown session with 404", async () => {
    const { v2 } = await startServer()
    const unknown = await refusal(v2.session.prompt({ sessionID: `ses_${"Z".repeat(26)}`, ...hello("Hi") }))
    expect(unknown.status).toBe(404)
  })
})
