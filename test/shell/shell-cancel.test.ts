import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { type MessageV2, Tool } from "../../src/index.js"
import { say } from "../../src/testing/index.js"
import { bashRunning, shellSetup } from "./helpers.js"

const { setup } = shellSetup("agentloop-shell-cancel-")

function toolPart(message: MessageV2.WithParts): MessageV2.ToolPart {
  const part = message.parts.find((candidate) => candidate.type === "tool")
  if (part?.type !== "tool") throw new Error("expected a tool part")
  return part
}

/** A command that runs until the test writes the file `go` in its directory (at most 10 s). */
const UNTIL_GO = 'for i in $(seq 500); do [ -f go ] && break; sleep 0.02; done; echo "$((6 * 7))-released"'

describe("runtime.session.shell with reads and cancels", () => {
  it("leaves a running command alone when the session is read meanwhile", async () => {
    const { runtime, directory, events, session } = await setup()
    const started = bashRunning(runtime)
    const shell = runtime.session.shell({ sessionID: session.id, command: UNTIL_GO })
    const running = await started

    const read = await runtime.session.messages(session.id)
    await writeFile(join(directory, "go"), "")
    const answer = await shell

    const during = read.flatMap((message) => message.parts).find((part) => part.id === running.id)
    expect(during).toMatchObject({ state: { status: "running" } })
    expect(toolPart(answer).state).toMatchObject({ status: "completed" })
    const { state } = toolPart(answer)
    expect(state.status === "completed" && state.output).toContain("42-released")
    const errors = events.filter(
      (event) =>
        (event.type === "message.part.updated" &&
          event.properties.part.type === "tool" &&
          event.properties.part.state.status === "error") ||
        (event.type === "message.updated" &&
          event.properties.info.role === "assistant" &&
          event.properties.info.error !== undefined),
    )
    expect(errors).toEqual([])
    expect(await runtime.session.messages(session.id)).toEqual([read[0], answer])
  }, 15_000)

  it("resolves a loop queued behind the command with the command's message when cancelled, calling no model", async () => {
    const { runtime, model, session } = await setup({ turns: [[say.text("should not be called")]] })
    const started = bashRunning(runtime)
    const shell = runtime.session.shell({ sessionID: session.id, command: "sleep 30" })
    await started
    const loop = runtime.session.loop(session.id)
    // Lets the loop reach its wait for the command (it reads the session first).
    for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve))

    await runtime.session.cancel(session.id)
    const [answer, result] = await Promise.all([shell, loop])

    expect(model.calls).toHaveLength(0)
    expect(result.info.id).toBe(answer.info.id)
    expect(toolPart(answer).state).toMatchObject({ status: "completed", metadata: { aborted: true } })
  }, 15_000)

  it("is idle, and takes a new command, as soon as cancel resolves", async () => {
    const { runtime, session } = await setup()
    const started = bashRunning(runtime)
    // The command outlives SIGTERM: it ends only at SIGKILL, after the kill's grace period.
    const shell = runtime.session.shell({ sessionID: session.id, command: "trap '' TERM; sleep 30" })
    await started

    await runtime.session.cancel(session.id)

    expect(runtime.session.status(session.id)).toEqual({ type: "idle" })
    const again = await runtime.session.shell({ sessionID: session.id, command: "echo again" })
    expect(toolPart(again).state).toMatchObject({ status: "completed" })
    expect(toolPart(await shell).state).toMatchObject({ status: "completed", metadata: { aborted: true } })
  }, 15_000)

  it("is idle as soon as cancel of a running turn resolves", async () => {
    let entered!: () => void
    const running = new Promise<void>((resolve) => {
      entered = resolve
    })
    // A tool that takes a while to stop after the abort, as a killed process does.
    const slow = Tool.define("slow", {
      description: "Stops slowly",
      parameters: z.object({}),
      async execute(_, context) {
        entered()
        await new Promise<void>((resolve) => context.abort.addEventListener("abort", () => resolve()))
        for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve))
        return "stopped"
      },
    })
    const { runtime, session } = await setup({
      tools: [slow],
      turns: [[say.toolCall("slow", {})], [say.text("never")]],
    })
    const prompt = runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "go" }] })
    await running

    await runtime.session.cancel(session.id)

    expect(runtime.session.status(session.id)).toEqual({ type: "idle" })
    const result = await prompt
    expect(result.finish.reason).toBe("aborted")
  }, 15_000)
})
