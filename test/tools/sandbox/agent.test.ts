import { mkdir, readFile, symlink, writeFile } from "node:fs/promises"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { basename, join } from "node:path"
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import type { MessageV2 } from "../../../src/index.js"
import { createTestRuntime, say } from "../../../src/testing/index.js"
import { codingTools } from "../../../src/tools/index.js"
import { sandboxOperations } from "../../../src/tools/sandbox/index.js"
import { bwrapInstalled, processesWith, tempDirs, uniqueMarker } from "./helpers.js"

const dirs = tempDirs()
afterEach(async () => {
  await dirs.cleanup()
  vi.unstubAllEnvs()
})

const allowAll = [{ permission: "*", pattern: "*", action: "allow" as const }]

/** What the model read back from each tool call: the output, or the error. */
async function toolResults(runtime: ReturnType<typeof createTestRuntime>["runtime"], sessionID: string) {
  const messages = await runtime.session.messages(sessionID)
  return messages
    .flatMap((message) => message.parts)
    .filter((part): part is MessageV2.ToolPart => part.type === "tool")
    .map((part) => ({
      tool: part.tool,
      status: part.state.status,
      text:
        part.state.status === "completed"
          ? part.state.output
          : part.state.status === "error"
            ? part.state.error
            : "",
    }))
}

describe.runIf(bwrapInstalled)("a scripted agent's bash in the sandbox", () => {
  let project: string
  let other: string
  let home: string
  let server: Server

  beforeEach(async () => {
    project = await dirs.make("agentloop-sandbox-agent-")
    other = await dirs.make("agentloop-sandbox-agent-other-")
    home = await dirs.make("agentloop-sandbox-agent-home-")
    await writeFile(join(other, "secret.txt"), "other session's secret")
    await mkdir(join(home, ".ssh"))
    await writeFile(join(home, ".ssh/id_rsa"), "-----BEGIN FAKE PRIVATE KEY-----")
    await symlink(join(other, "secret.txt"), join(project, "link.txt"))
    vi.stubEnv("HOME", home)
    vi.stubEnv("ANTHROPIC_API_KEY", "sk-ant-fake-agent-0123456789")
    server = createServer((_request, response) => response.end("reached"))
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  })
  afterEach(() => new Promise((resolve) => server.close(resolve)))

  it("fails every escape, says so in the tool result, and does ordinary work", async () => {
    const port = (server.address() as AddressInfo).port
    const marker = uniqueMarker()
    const attempts: [command: string, says: RegExp][] = [
      // Paths built at run time, which the bash tool's path checks cannot see.
      [`T=${other}/secret.txt; echo pwned > "$T"`, /No such file or directory/],
      [`D=..; echo pwned > "$D/${basename(other)}/secret.txt"`, /No such file or directory/],
      [`L=link.txt; echo pwned > "$L"`, /No such file or directory/],
      [`S=${other}/secret.txt; ln "$S" stolen.txt`, /No such file or directory/],
      [`P=/usr/local; touch "$P/pwned"`, /Read-only file system/],
      [`cat "$(echo ${home})/.ssh/id_rsa"`, /No such file or directory/],
      [`D=${other}; ls "$D"`, /No such file or directory/],
      ['echo "key=[$ANTHROPIC_API_KEY]"', /key=\[\]/],
      [
        `curl -sS --max-time 5 http://127.0.0.1:${port}/`,
        /Couldn't connect|Failed to connect|Could not resolve/,
      ],
      [`(exec -a ${marker} sleep 300) >/dev/null 2>&1 & echo started`, /started/],
      [`kill -9 $PPID ${process.pid}; echo still here`, /No such process[\s\S]*still here/],
      // The same written plainly, where the bash tool's own path checks see them too.
      [`echo pwned > ${other}/secret.txt`, /No such file or directory|outside the sandbox/],
      ["cat ~/.ssh/id_rsa", /No such file or directory|outside the sandbox/],
    ]
    const ordinary =
      "git init -q && git config user.email a@example.com && git config user.name t && git add -A && " +
      "git commit -qm first && node -e 'console.log(6 * 7)' && printf 'mkdir -p dist && echo ok > dist/out\\n' > build.sh && " +
      "sh build.sh && rg --files --sort path"
    const { runtime } = createTestRuntime({
      directory: project,
      tools: codingTools({ directory: project, operations: sandboxOperations({ directory: project }) }),
      permission: allowAll,
      turns: [
        ...attempts.map(([command]) => [say.toolCall("bash", { command, description: "Try" })]),
        [say.toolCall("bash", { command: ordinary, description: "Build" })],
        [say.text("done")],
      ],
    })
    const session = await runtime.session.create({ title: "escape" })
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "go" }] })

    const results = await toolResults(runtime, session.id)
    expect(results).toHaveLength(attempts.length + 1)
    attempts.forEach(([command, says], index) => {
      expect(results[index]!.text, command).toMatch(says)
      expect(results[index]!.text, command).not.toMatch(/PRIVATE KEY|secret'|sk-ant-fake|reached/)
    })
    expect(results.at(-1)).toMatchObject({ status: "completed" })
    expect(results.at(-1)!.text).toBe("42\nbuild.sh\ndist/out\n")
    expect(await readFile(join(other, "secret.txt"), "utf8")).toBe("other session's secret")
    expect(processesWith(marker)).toEqual([])
  }, 30_000)

  it("does its file work inside the sandbox and refuses a link that points out", async () => {
    await writeFile(join(project, "app.ts"), "export const answer = 1\n")
    const { runtime } = createTestRuntime({
      directory: project,
      tools: codingTools({ directory: project, operations: sandboxOperations({ directory: project }) }),
      permission: allowAll,
      turns: [
        [say.toolCall("read", { filePath: "app.ts" })],
        [say.toolCall("edit", { filePath: "app.ts", oldString: "= 1", newString: "= 42" })],
        [say.toolCall("write", { filePath: "src/new.ts", content: "export {}\n" })],
        [say.toolCall("glob", { pattern: "**/*.ts" })],
        [say.toolCall("grep", { pattern: "answer" })],
        [say.toolCall("list", {})],
        [say.toolCall("read", { filePath: "link.txt" })],
        [say.toolCall("write", { filePath: `${other}/secret.txt`, content: "pwned" })],
        [say.text("done")],
      ],
    })
    const session = await runtime.session.create({ title: "files" })
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "go" }] })

    const results = await toolResults(runtime, session.id)
    expect(results.slice(0, 6).map((result) => result.status)).toEqual(Array(6).fill("completed"))
    expect(await readFile(join(project, "app.ts"), "utf8")).toBe("export const answer = 42\n")
    expect(results[3]!.text).toContain("src/new.ts")
    expect(results[4]!.text).toContain("app.ts")
    expect(results[6]).toMatchObject({ status: "error" })
    expect(results[6]!.text).toMatch(/outside the sandbox|symbolic link/)
    expect(results[7]).toMatchObject({ status: "error" })
    expect(results[7]!.text).toContain("outside the sandbox")
    expect(await readFile(join(other, "secret.txt"), "utf8")).toBe("other session's secret")
  }, 30_000)
})
