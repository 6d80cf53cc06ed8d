// examples/terminal-ui.ts as README's "Try it" serves it, driven through OpenCode's SDK as the
// terminal UI drives it: the prompt, the bash permission approved, the question answered.
import { createOpencodeClient, type Event } from "@opencode-ai/sdk/v2"
import { afterAll, describe, expect, it } from "vitest"
import { CliProcess, runningClis } from "./cli-process.js"

afterAll(() => {
  for (const child of runningClis) child.kill("SIGKILL")
})

describe("examples/terminal-ui.ts served by the CLI", () => {
  it("asks before its command, asks which file, and answers", async () => {
    const cli = new CliProcess(["serve", "examples/terminal-ui.ts", "--port", "0"])
    const url = await cli.url()
    const directory = cli.stdout.match(/^Project: (.*)$/m)![1]!
    const client = createOpencodeClient({ baseUrl: url, directory })
    const events = await client.event.subscribe()
    const session = await client.session.create({}, { throwOnError: true })
    const answer = client.session.prompt(
      { sessionID: session.data.id, parts: [{ type: "text", text: "What is in this project?" }] },
      { throwOnError: true },
    )
    const asked: string[] = []
    for await (const event of events.stream as AsyncIterable<Event>) {
      if (event.type === "permission.asked") {
        asked.push(`permission ${event.properties.permission}: ${event.properties.patterns.join(" ")}`)
        await client.permission.reply(
          { requestID: event.properties.id, reply: "once" },
          { throwOnError: true },
        )
      }
      if (event.type === "question.asked") {
        asked.push(`question: ${event.properties.questions[0]?.question}`)
        await client.question.reply(
          { requestID: event.properties.id, answers: [["README.md"]] },
          { throwOnError: true },
        )
      }
      if (event.type === "session.idle") break
    }
    const { data } = await answer
    expect(asked).toEqual(["permission bash: ls -la", "question: Which file should I summarise?"])
    expect(data.parts.filter((part) => part.type === "text").map((part) => part.text)).toEqual([
      "It is a tiny demo project made for OpenCode's terminal UI on agentloop.",
    ])
    cli.signal("SIGINT")
    expect((await cli.exited()).code).toBe(0)
  }, 60_000)
})
