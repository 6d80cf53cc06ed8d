import type { Hono } from "hono"
import { z } from "zod"
import type { Runtime } from "../runtime/runtime.js"
import { documented } from "./route-doc.js"
import { vcsRoutes } from "./vcs-routes.js"
import { PROJECT_ID } from "./wire/session.js"

const List = z.array(z.unknown())
const Keyed = z.record(z.string(), z.unknown())

/**
 * Routes OpenCode's terminal UI reads at start whose subject this library does not have: LSP
 * servers, formatters, MCP status, provider log-in, workspaces. Each answers
 * OpenCode's empty value in its documented shape, so the client shows nothing there and goes on.
 */
const empty: { path: string; operationId: string; summary: string; schema: z.ZodType; value: unknown }[] = [
  {
    path: "/provider/auth",
    operationId: "provider.auth",
    summary: "Provider log-in methods: none, the host configures providers",
    schema: Keyed,
    value: {},
  },
  {
    path: "/project/:projectID/directories",
    operationId: "project.directories",
    summary: "Other directories of the project: none",
    schema: List,
    value: [],
  },
  { path: "/lsp", operationId: "lsp.status", summary: "LSP servers: none", schema: List, value: [] },
  {
    path: "/formatter",
    operationId: "formatter.status",
    summary: "Formatters: none",
    schema: List,
    value: [],
  },
  {
    path: "/mcp",
    operationId: "mcp.status",
    summary: "MCP servers: none tracked (MCP tools are the host's)",
    schema: Keyed,
    value: {},
  },
  {
    path: "/experimental/capabilities",
    operationId: "experimental.capabilities.get",
    summary: "Experimental capabilities: none",
    schema: z.object({ backgroundSubagents: z.boolean() }),
    value: { backgroundSubagents: false },
  },
  {
    path: "/experimental/console",
    operationId: "experimental.console.get",
    summary: "OpenCode console state: none",
    schema: z.object({ consoleManagedProviders: z.array(z.string()), switchableOrgCount: z.number() }),
    value: { consoleManagedProviders: [], switchableOrgCount: 0 },
  },
  {
    path: "/experimental/resource",
    operationId: "experimental.resource.list",
    summary: "MCP resources: none",
    schema: Keyed,
    value: {},
  },
  {
    path: "/experimental/workspace",
    operationId: "experimental.workspace.list",
    summary: "Workspaces: none",
    schema: List,
    value: [],
  },
  {
    path: "/experimental/workspace/status",
    operationId: "experimental.workspace.status",
    summary: "Workspace connections: none",
    schema: List,
    value: [],
  },
]

export function emptyRoutes(app: Hono, runtime: Runtime): void {
  for (const { path, operationId, summary, schema, value } of empty)
    app.get(path, documented({ operationId, summary, response: schema }), (c) => c.json(value))
  vcsRoutes(app)
  // The newer API's reads name where they answer from, then the (empty) data.
  const location = { directory: runtime.directory, project: { id: PROJECT_ID, directory: runtime.directory } }
  const Location = z.object({
    directory: z.string(),
    project: z.object({ id: z.string(), directory: z.string() }),
  })
  app.get(
    "/api/location",
    documented({
      operationId: "v2.location.get",
      summary: "Where this server answers from",
      response: Location,
    }),
    (c) => c.json(location),
  )
  for (const [name, what] of [
    ["integration", "Integrations"],
    ["reference", "References"],
  ] as const)
    app.get(
      `/api/${name}`,
      documented({
        operationId: `v2.${name}.list`,
        summary: `${what}: none`,
        response: z.object({ location: Location, data: List }),
      }),
      (c) => c.json({ location, data: [] }),
    )
}
