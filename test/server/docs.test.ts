// The curl examples of docs/server.md, run against a served app, so that the docs stay true.
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { createServer, serve } from "../../src/server/index.js"
import { createTestRuntime, say, scriptedModel } from "../../src/testing/index.js"
import { fakeSnapshot } from "../snapshot/fake-snapshot.js"
import { eventually, nextEvent, servedRoutes, sseReader } from "./helpers.js"

const DOCS = new URL("../../docs/server.md", import.meta.url)
const DOCS_ORIGIN = "http://localhost:4096"

type Curl = {
  line: string
  method: string
  path: string
  headers: Record<string, string>
  body?: string
  stream: boolean
  /** The shell variable the docs keep the answer's `id` in: `NAME=$(curl … | jq -r .id)`. */
  assigns?: string
}

/** The fenced shell blocks' text. */
function shellBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```(?:sh|bash|shell|console)\n([\s\S]*?)^```/gm)].map(
    (match) => match[1] ?? "",
  )
}

/** The curl commands of the shell blocks, continuation lines joined, `$(curl … | jq …)` unwrapped. */
function curlCommands(markdown: string): { line: string; assigns?: string }[] {
  return shellBlocks(markdown)
    .flatMap((block) => block.replace(/\\\n\s*/g, "").split("\n"))
    .map((line) => {
      const assignment = /^(\w+)=\$\((.*)\)$/.exec(line.trim())
      const command = (assignment?.[2] ?? line.trim()).replace(/\s\|\s.*$/, "")
      return assignment?.[1] ? { line: command, assigns: assignment[1] } : { line: command }
    })
    .filter(({ line }) => line.startsWith("curl "))
}

/** Splits a command line as a shell would, for the quoting the docs use ('…' and "…" with \"). */
function words(line: string): string[] {
  const found: string[] = []
  for (const match of line.matchAll(/'([^']*)'|"((?:\\.|[^"\\])*)"|(\S+)/g))
    found.push(match[1] ?? match[2]?.replace(/\\(.)/g, "$1") ?? match[3] ?? "")
  return found
}

const VALUE_OPTIONS = new Set(["-X", "--request", "-d", "--data", "--data-raw", "-H", "--header"])

function parseCurl(line: string, variables: Record<string, string>): Curl {
  const expanded = words(line).map((word) =>
    word.replace(/\$(\w+)|\$\{(\w+)\}/g, (whole, bare?: string, braced?: string) => {
      const name = bare ?? braced ?? ""
      return variables[name] ?? whole
    }),
  )
  let method: string | undefined
  let body: string | undefined
  const headers: Record<string, string> = {}
  let url = ""
  for (let index = 1; index < expanded.length; index++) {
    const word = expanded[index]!
    const value = VALUE_OPTIONS.has(word) ? (expanded[++index] ?? "") : undefined
    if (word === "-X" || word === "--request") method = value
    else if (word === "-d" || word === "--data" || word === "--data-raw") body = value
    else if (word === "-H" || word === "--header") {
      const colon = value!.indexOf(":")
      headers[value!.slice(0, colon).trim()] = value!.slice(colon + 1).trim()
    } else if (!word.startsWith("-")) url = word
  }
  expect(url.startsWith(DOCS_ORIGIN), line).toBe(true)
  return {
    line,
    method: method ?? (body === undefined ? "GET" : "POST"),
    path: url.slice(DOCS_ORIGIN.length),
    headers,
    ...(body === undefined ? {} : { body }),
    stream: expanded.includes("-N") || expanded.includes("--no-buffer"),
  }
}

/** A route path with its parameters unnamed: `/session/:id` and `/session/{sessionID}` match. */
const unnamed = (path: string) => path.replace(/:\w+|\{\w+\}/g, ":")

/**
 * The routes the docs name in code spans: `` `GET /session/:id` ``, or a bare `` `/api/agent` ``
 * in a row that names several paths of one method.
 */
function namedRoutes(markdown: string): { withMethod: Set<string>; bare: Set<string> } {
  const withMethod = new Set<string>()
  const bare = new Set<string>()
  for (const [, method, path] of markdown.matchAll(/`(?:(GET|POST|PUT|PATCH|DELETE) )?(\/[^`\s]*)`/g))
    if (method) withMethod.add(`${method} ${unnamed(path!)}`)
    else bare.add(unnamed(path!))
  return { withMethod, bare }
}

function setupDocsRuntime() {
  const model = scriptedModel([], { fallback: [say.text("A small agent library.")] })
  const commands = { review: { template: "Review $ARGUMENTS" } }
  return createTestRuntime({ model, commands, snapshot: fakeSnapshot().snapshot })
}

describe("docs/server.md", () => {
  const markdown = readFileSync(DOCS, "utf8")

  it("names every route the server serves", () => {
    const { withMethod, bare } = namedRoutes(markdown)
    const missing = servedRoutes(createServer(setupDocsRuntime().runtime))
      .filter(({ method, path }) => !withMethod.has(`${method} ${unnamed(path)}`) && !bare.has(unnamed(path)))
      .map(({ method, path }) => `${method} ${path}`)
    expect(missing).toEqual([])
  })

  it("lists in its tables only routes the server serves", () => {
    const served = new Set(
      servedRoutes(createServer(setupDocsRuntime().runtime)).map(
        ({ method, path }) => `${method} ${unnamed(path)}`,
      ),
    )
    const rows = markdown.split("\n").filter((line) => line.startsWith("|"))
    const listed = [...namedRoutes(rows.join("\n")).withMethod]
    expect(listed.length).toBeGreaterThan(0)
    expect(listed.filter((route) => !served.has(route))).toEqual([])
  })

  it("has curl examples that work against a served app", async () => {
    const { runtime } = setupDocsRuntime()
    const server = await serve(createServer(runtime), { port: 0 })
    const variables: Record<string, string> = {}
    const commands = curlCommands(markdown)
    // Every curl the shell blocks show is run: none is skipped by a parse that missed it.
    const shown = shellBlocks(markdown).flatMap((block) => [...block.matchAll(/(^|\$\(|\s)curl\s/gm)])
    expect(commands.length).toBe(shown.length)
    expect(commands.length).toBeGreaterThan(0)
    try {
      for (const { line, assigns } of commands) {
        if (variables.SESSION_ID) await prepare(runtime, variables)
        const curl = parseCurl(line, variables)
        const response = await fetch(`${server.url}${curl.path}`, {
          method: curl.method,
          headers: curl.headers,
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
        if (assigns) variables[assigns] = (JSON.parse(text) as { id: string }).id
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
