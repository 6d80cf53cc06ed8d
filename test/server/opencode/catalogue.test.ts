import { describe, expect, it } from "vitest"
import { answer, getJSON, openapi, startServer, testModel } from "./helpers.js"

const commands = { review: { template: "Review $ARGUMENTS", description: "Review a file" } }

/**
 * The reads `opencode attach` (1.18.33) makes at start, in its order, as recorded against
 * `opencode serve`; `{project}` is the project's ID. /global/event is the events test's.
 */
const tuiStartup = [
  "/path",
  "/project/current",
  "/config/providers",
  "/experimental/capabilities",
  "/experimental/console",
  "/project/{project}/directories",
  "/agent",
  "/config",
  "/provider",
  "/session?start={start}&path=",
  "/api/location",
  "/api/agent",
  "/command",
  "/api/integration",
  "/api/model",
  "/api/provider",
  "/api/reference",
  "/api/command",
  "/api/skill",
  "/lsp",
  "/mcp",
  "/experimental/resource",
  "/formatter",
  "/session/status",
  "/provider/auth",
  "/vcs",
  "/experimental/workspace",
  "/experimental/workspace/status",
]

describe("what `opencode attach` reads at start", () => {
  it("answers every read 200 in OpenCode's shape", async () => {
    const { url, directory, v2 } = await startServer({ commands })
    const project = await answer("project.current", v2.project.current())
    const failures: string[] = []
    for (const template of tuiStartup) {
      const path = template
        .replace("{project}", project.id)
        .replace("{start}", String(Date.now() - 2_592_000_000))
      const operationId = openapi.operationFor("GET", path.split("?")[0]!)!
      const separator = path.includes("?") ? "&" : "?"
      const { status, body } = await getJSON(
        url,
        `${path}${separator}directory=${encodeURIComponent(directory)}`,
      )
      try {
        if (status !== 200) throw new Error(`answered ${status}: ${JSON.stringify(body)}`)
        openapi.expectShape(operationId, body)
      } catch (error) {
        failures.push(
          `GET ${path} (${operationId}): ${(error as Error).message.split("\n").slice(0, 3).join(" | ")}`,
        )
      }
    }
    expect(failures).toEqual([])
  }, 30_000)
})

describe("catalogue reads through OpenCode's SDK clients", () => {
  it("command.list and app.agents list the runtime's commands and agents", async () => {
    const { v2, older } = await startServer({ commands })
    const listed = await answer("command.list", v2.command.list())
    expect(listed).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: "review", template: "Review $ARGUMENTS" })]),
    )
    expect(await answer("command.list", older.command.list())).toEqual(listed)
    const agents = await answer("app.agents", v2.app.agents())
    expect(agents).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: "build", mode: "primary" })]),
    )
    expect(await answer("app.agents", older.app.agents())).toEqual(agents)
  })

  it("config.get, config.providers and provider.list name the runtime's models", async () => {
    const { v2, older } = await startServer()
    await answer("config.get", v2.config.get())
    await answer("config.get", older.config.get())
    const configured = await answer("config.providers", v2.config.providers())
    const scripted = configured.providers.find((provider) => provider.id === testModel.providerID)
    expect(Object.keys(scripted?.models ?? {})).toContain(testModel.modelID)
    expect(configured.default).toMatchObject({ [testModel.providerID]: testModel.modelID })
    await answer("config.providers", older.config.providers())
    const providers = await answer("provider.list", v2.provider.list())
    expect(providers.all.map((provider) => provider.id)).toContain(testModel.providerID)
    expect(providers.connected).toContain(testModel.providerID)
    await answer("provider.list", older.provider.list())
    await answer("provider.auth", v2.provider.auth())
    await answer("provider.auth", older.provider.auth())
  })

  it("path.get, project.current, project.directories and vcs.get describe the runtime's directory", async () => {
    const { v2, older, directory } = await startServer()
    expect(await answer("path.get", v2.path.get())).toMatchObject({ directory })
    expect(await answer("path.get", older.path.get())).toMatchObject({ directory })
    const project = await answer("project.current", v2.project.current())
    await answer("project.current", older.project.current())
    await answer("project.directories", v2.project.directories({ projectID: project.id }))
    await answer("vcs.get", v2.vcs.get())
    await answer("vcs.get", older.vcs.get())
  })

  it("vcs.status, vcs.diff and app.skills answer OpenCode's shapes, never 404 (the TUI's /diff and /skills read them)", async () => {
    const { v2, url, directory } = await startServer()
    expect(await answer("vcs.status", v2.vcs.status())).toEqual([])
    // The terminal UI's /diff opens on the working tree: mode git, 12 lines of context.
    expect(await answer("vcs.diff", v2.vcs.diff({ mode: "git", context: 12 }))).toEqual([])
    expect(await answer("vcs.diff", v2.vcs.diff({ mode: "branch" }))).toEqual([])
    const raw = await fetch(`${url}/vcs/diff/raw?directory=${encodeURIComponent(directory)}`)
    expect([raw.status, await raw.text()]).toEqual([200, ""])
    expect(await answer("app.skills", v2.app.skills())).toEqual([])
  })

  it("lsp, formatter and mcp status answer that there are none", async () => {
    const { v2, older } = await startServer()
    expect(await answer("lsp.status", v2.lsp.status())).toEqual([])
    expect(await answer("formatter.status", v2.formatter.status())).toEqual([])
    expect(await answer("mcp.status", v2.mcp.status())).toEqual({})
    await answer("lsp.status", older.lsp.status())
    await answer("formatter.status", older.formatter.status())
    await answer("mcp.status", older.mcp.status())
  })

  it("the experimental reads answer OpenCode's shapes", async () => {
    const { v2 } = await startServer()
    await answer("experimental.capabilities.get", v2.experimental.capabilities.get())
    await answer("experimental.console.get", v2.experimental.console.get())
    expect(await answer("experimental.resource.list", v2.experimental.resource.list())).toEqual({})
    expect(await answer("experimental.workspace.list", v2.experimental.workspace.list())).toEqual([])
    expect(await answer("experimental.workspace.status", v2.experimental.workspace.status())).toEqual([])
  })

  it("the /api reads answer { location, data } for the runtime's directory", async () => {
    const { v2, directory } = await startServer({ commands })
    const location = await answer("v2.location.get", v2.v2.location.get())
    expect(location).toMatchObject({ directory })
    const agents = await answer("v2.agent.list", v2.v2.agent.list())
    expect(agents.location).toEqual(location)
    expect(agents.data.map((agent) => agent.id)).toContain("build")
    const models = await answer("v2.model.list", v2.v2.model.list())
    expect(models.data).toEqual(expect.arrayContaining([expect.objectContaining({ id: testModel.modelID })]))
    const providers = await answer("v2.provider.list", v2.v2.provider.list())
    expect(providers.data.map((provider) => provider.id)).toContain(testModel.providerID)
    const listed = await answer("v2.command.list", v2.v2.command.list())
    expect(listed.data.map((command) => command.name)).toContain("review")
    await answer("v2.integration.list", v2.v2.integration.list())
    await answer("v2.reference.list", v2.v2.reference.list())
    await answer("v2.skill.list", v2.v2.skill.list())
  })
})
