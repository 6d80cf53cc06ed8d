/**
 * The web example as a function, so `server.ts` and the browser test start the very same thing:
 * a runtime on a throwaway demo project, its HTTP API, and the chat page, on one origin.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join, relative, resolve } from "node:path"
import { createProvider, createRuntime, Tool } from "agentloop-sdk"
import { createServer, serve } from "agentloop-sdk/server"
import { z } from "zod"
import { chooseModel } from "../choose-model.js"
import { scriptedAgent } from "./scripted-agent.js"

export type WebExample = {
  url: string
  port: number
  /** Which model answers: the scripted one or a real one named by the environment. */
  model: string
  close(): Promise<void>
}

// Only these files are served: the page never reads anything else from disk.
const PAGE_FILES: Record<string, { file: string; type: string }> = {
  "/": { file: "index.html", type: "text/html; charset=utf-8" },
  "/app.js": { file: "app.js", type: "text/javascript; charset=utf-8" },
  "/render.js": { file: "render.js", type: "text/javascript; charset=utf-8" },
  "/dialogs.js": { file: "dialogs.js", type: "text/javascript; charset=utf-8" },
  "/style.css": { file: "style.css", type: "text/css; charset=utf-8" },
}
const PUBLIC = new URL("./public/", import.meta.url)

export async function startWebExample(
  options: { port?: number; hostname?: string } = {},
): Promise<WebExample> {
  const directory = createDemoProject()
  const { label, ...model } = chooseModel(() => scriptedAgent)
  const runtime = createRuntime({
    provider: createProvider({
      models: [model],
      default: { providerID: model.providerID, modelID: model.modelID },
    }),
    directory,
    tools: projectTools(directory),
    // The page answers questions, so the model may ask them.
    question: true,
    // Listing asks the person at the page; reading inside the throwaway project does not need to.
    permission: [
      { permission: "list", pattern: "*", action: "ask" },
      { permission: "read", pattern: "*", action: "allow" },
    ],
  })
  const api = createServer(runtime)
  const server = await serve(
    {
      async fetch(request) {
        const page = request.method === "GET" ? PAGE_FILES[new URL(request.url).pathname] : undefined
        if (!page) return api.fetch(request)
        const body = await readFile(new URL(page.file, PUBLIC))
        return new Response(body, { headers: { "content-type": page.type, "cache-control": "no-store" } })
      },
    },
    { port: options.port ?? 0, hostname: options.hostname ?? "127.0.0.1" },
  )
  return {
    url: server.url,
    port: server.port,
    model: label,
    async close() {
      // The server first: its open event streams end before the runtime they listen to.
      await server.close()
      await runtime.close()
      rmSync(directory, { recursive: true, force: true })
    },
  }
}

function createDemoProject(): string {
  const directory = mkdtempSync(join(tmpdir(), "agentloop-web-"))
  writeFileSync(
    join(directory, "README.md"),
    "# Demo project\nA tiny project for the agentloop web example.\n",
  )
  writeFileSync(join(directory, "package.json"), '{ "name": "demo", "version": "1.0.0" }\n')
  writeFileSync(join(directory, "notes.txt"), "Remember: every tool call shows up on the page.\n")
  return directory
}

/** Two small tools over the demo project; each asks before touching it, as any tool should. */
function projectTools(directory: string) {
  const inside = (path: string) => {
    const absolute = resolve(directory, path)
    if (relative(directory, absolute).startsWith("..")) throw new Error(`${path} is outside the project`)
    return absolute
  }
  const listFiles = Tool.define("list_files", {
    description: "List the files of a directory of the project",
    parameters: z.object({ directory: z.string().describe("A path relative to the project root") }),
    async execute(args, context) {
      await context.ask({ permission: "list", patterns: [args.directory], always: ["*"] })
      const files = readdirSync(inside(args.directory))
      return { title: args.directory, output: files.join("\n"), metadata: { count: files.length } }
    },
  })
  const readFileTool = Tool.define("read_file", {
    description: "Read a text file of the project",
    parameters: z.object({ path: z.string().describe("A path relative to the project root") }),
    async execute(args, context) {
      await context.ask({ permission: "read", patterns: [args.path], always: ["*"] })
      return { title: args.path, output: readFileSync(inside(args.path), "utf8") }
    },
  })
  return [listFiles, readFileTool]
}
