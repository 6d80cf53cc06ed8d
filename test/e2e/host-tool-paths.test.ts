// A host's own tool asks with paths as the built-in file tools do: resolved against the directory.
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { type MessageV2, Permission, Tool } from "../../src/index.js"
import { createTestRuntime, say } from "../../src/testing/index.js"

const directory = "/work/project"

/** A host tool that asks `read` for the path it is given, the way `how` says, and records what ran. */
function peekTool(how: "paths" | "pathPattern") {
  const ran: string[] = []
  const peek = Tool.define("peek", {
    description: "Peek at a file",
    parameters: z.object({ path: z.string() }),
    async execute({ path }, context) {
      if (how === "paths") await context.ask({ permission: "read", patterns: [path], paths: true })
      else
        await context.ask({
          permission: "read",
          patterns: [Permission.pathPattern(path, context.directory ?? "")],
        })
      ran.push(path)
      return { title: path, output: "contents", metadata: {} }
    },
  })
  return { peek, ran }
}

async function peekAt(path: string, how: "paths" | "pathPattern" = "paths") {
  const { peek, ran } = peekTool(how)
  const asked: Permission.Request[] = []
  const { runtime } = createTestRuntime({
    directory,
    tools: [peek],
    permission: Permission.fromConfig({ read: { "*": "deny", "src/*": "allow" } }),
    onPermission: (request) => {
      asked.push(request)
      return "once"
    },
    turns: [[say.toolCall("peek", { path })], [say.text("done")]],
  })
  const session = await runtime.session.create()
  await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "peek" }] })
  const parts = (await runtime.session.messages(session.id)).flatMap((message) => message.parts)
  const call = parts.find((part): part is MessageV2.ToolPart => part.type === "tool")
  return { ran, asked, state: call?.state }
}

describe("a host tool's ask with paths: true", () => {
  it("does not let src/../../etc/shadow pass as src/*: external_directory is asked, then read is denied", async () => {
    const { ran, asked, state } = await peekAt("src/../../etc/shadow")
    expect(ran).toEqual([])
    expect(asked.map(({ permission, patterns }) => ({ permission, patterns }))).toEqual([
      { permission: "external_directory", patterns: ["/work/etc/*"] },
    ])
    expect(state).toMatchObject({ status: "error" })
    expect(state?.status === "error" && state.error).toContain(`read "*" -> deny`)
  })

  it("still allows src/a.ts, and ./src/x/../a.ts as src/a.ts, without asking", async () => {
    for (const path of ["src/a.ts", "./src/x/../a.ts", `${directory}/src/a.ts`]) {
      const { ran, asked, state } = await peekAt(path)
      expect(ran).toEqual([path])
      expect(asked).toEqual([])
      expect(state).toMatchObject({ status: "completed" })
    }
  })

  it("Permission.pathPattern with the context's directory gives the same pattern", async () => {
    const escaped = await peekAt("src/../../etc/shadow", "pathPattern")
    expect(escaped.ran).toEqual([])
    expect(escaped.state?.status === "error" && escaped.state.error).toContain(`read "*" -> deny`)
    const inside = await peekAt("src/./a.ts", "pathPattern")
    expect(inside.ran).toEqual(["src/./a.ts"])
  })
})
