// The curl examples of docs/server.md, run against a served app, so that the docs stay true.
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { createServer, serve } from "../../src/server/index.js"
import { routes } from "../../src/server/route-specs.js"
import { createTestRuntime, say, scriptedModel } from "../../src/testing/index.js"
import { fakeSnapshot } from "../snapshot/fake-snapshot.js"
import { eventually, nextEvent, sseReader } from "./helpers.js"

const DOCS = new URL("../../docs/server.md", import.meta.url)
const DOCS_ORIGIN = "http://localhost:4096"

type Curl = { line: string; method: string; path: string; body?: string; stream: boolean }

/** The curl commands of the ```sh blocks, continuation lines joined, `$(curl … | jq …)` unwrapped. */
function curlCommands(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((match) => match[1] ?? "")
  return blocks
    .flatMap((block) => block.replace(/\\\n\s*/g, "").split("\n"))
    .map((line) => line.replace(/^\w+=\$\((.*)\)$/, "$1").replace(/\s\|\s.*$/, ""))
    .filter((line) => line.startsWith("curl "))
}

/** Splits a command line as a shell would, for the quoting the docs use ('…' and "…" with \"). */
function words(line: string): string[] {
  const found: string[] = []
  for (const match of line.matchAll(/'([^']*)'|"((?:\\.|[^"\\])*)"|(\S+)/g))
    found.push(match[1] ?? match[2]?.replace(/\\(.)/g, "$1") ?? match[3] ?? "")
  return found
}

function parseCurl(line: string, variables: Record<string, string>): Curl {
  const expanded = words(line).map((word) =>
    word.replace(/\$(\w+)/g, (_, name: string) => variables[name] ?? `$${name}`),
  )
  let method: string | undefined
  let body: string | undefined
  let url = ""
  for (let index = 1; index < expanded.length; index++) {
    const word = expanded[index]!
    if (word === "-X") method = expanded[++index]
    else if (word === "-d") body = expanded[++index]
    else if (!word.startsWith("-")) url = word
  }
  expect(url.startsWith(DOCS_ORIGIN), line).toBe(true)
  return {
    line,
    method: method ?? (body === undefined ? "GET" : "POST"),
    path: url.slice(DOCS_ORIGIN.length),
    ...(body === undefined ? {} : { body }),
    stream: expanded.includes("-N"),
  }
}

function setupDocsRuntime() {
  const model = scriptedModel([], { fallback: [say.text("A small agent library.")] })
  const commands = { review: { template: "Review $ARGUMENTS" } }
  return createTestRuntime({ model, commands, snapshot: fakeSnapshot().snapshot })
}

describe("docs/server.md", () => {
  const markdown = readFileSync(DOCS, "utf8")

  it("lists every route in its routes table", () => {
    for (const { method, path } of Object.values(routes))
      expect(markdown, `${method} ${path}`).toContain(`| \`${method.toUpperCase()} ${path}\``)
  })

  it("has curl examples that work against a served app", async () => {
    const { runtime } = setupDocsRuntime()
    const server = await serve(createServer(runtime), { port: 0 })
    const variables: Record<string, string> = {}
    const commands = curlCommands(markdown)
    expect(commands.length).toBeGreaterThanOrEqual(20)
    try {
      for (const line of commands) {
        if (variables.SESSION_ID) await prepare(runtime, variables)
        const curl = parseCurl(line, variables)
        const response = await fetch(`${server.url}${curl.path}`, {
          method: curl.method,
          ...(curl.body === undefined ? {} : { body: curl.body }),
        })
        expect(response.status, `${line}: ${response.status}`).toBeLessThan(300)
        if (curl.stream) {
          const stream = sseReader(response.body!)
          await stream.until((message) => message.event === "server.connected")
          await stream.cancel()
          continue
        }
        const text = await response.text()
        if (!variables.SESSION_ID) variables.SESSION_ID = (JSON.parse(text) as { id: string }).id
      }
    } finally {
      await server.close()
    }
  })
})

type DocsRuntime = ReturnType<typeof setupDocsRuntime>["runtime"]

/**
 * What the reader is told to have at hand: the session idle, a pending permission request and
 * question (as the agent would ask them), and a message to revert to.
 */
async function prepare(runtime: DocsRuntime, variables: Record<string, string>) {
  const sessionID = variables.SESSION_ID!
  await eventually(() => runtime.session.status(sessionID).type === "idle")
  if ((await runtime.permission.list()).length === 0) {
    const asked = nextEvent(runtime, (event) => event.type === "permission.asked")
    const rules = [{ permission: "edit", pattern: "*", action: "ask" as const }]
    runtime.permission
      .ask({ sessionID, permission: "edit", patterns: ["a.ts"], ruleset: rules })
      .catch(() => {})
    await asked
  }
  if ((await runtime.question.list()).length === 0) {
    const asked = nextEvent(runtime, (event) => event.type === "question.asked")
    const question = { question: "Which package manager?", header: "Package manager", options: [] }
    runtime.question.ask({ sessionID, questions: [question] }).catch(() => {})
    await asked
  }
  const [permission] = await runtime.permission.list()
  const [question] = await runtime.question.list()
  if (permission) variables.PERMISSION_ID = permission.id
  if (question) variables.QUESTION_ID = question.id
  const firstUser = (await runtime.session.messages(sessionID)).find(
    (message) => message.info.role === "user",
  )
  if (firstUser) variables.MESSAGE_ID = firstUser.info.id
}
