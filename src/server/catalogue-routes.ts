import { homedir } from "node:os"
import { join } from "node:path"
import type { Hono } from "hono"
import { z } from "zod"
import { builtins } from "../agent/builtins.js"
import type { Runtime } from "../runtime/runtime.js"
import { documented } from "./route-doc.js"
import { skillNames } from "./skill-routes.js"
import {
  defaultsOf,
  providersOf,
  toWireAgent,
  toWireCommand,
  WireAgent,
  WireCommand,
  WireProvider,
} from "./wire/catalogue.js"
import { PROJECT_ID } from "./wire/session.js"

const Path = z.object({
  home: z.string(),
  state: z.string(),
  config: z.string(),
  worktree: z.string(),
  directory: z.string(),
})
const Project = z.object({
  id: z.string(),
  worktree: z.string(),
  time: z.object({ created: z.number(), updated: z.number() }),
  sandboxes: z.array(z.string()),
})
const Config = z.object({
  command: z.record(z.string(), z.record(z.string(), z.unknown())),
  agent: z.record(z.string(), z.unknown()),
  mode: z.record(z.string(), z.unknown()),
  plugin: z.array(z.string()),
  model: z.string().optional(),
  small_model: z.string().optional(),
  default_agent: z.string().optional(),
})

/**
 * What the runtime offers, in OpenCode's config, provider, agent, command, path and project
 * shapes: the clients' pickers and headers read these.
 */
export function catalogueRoutes(app: Hono, runtime: Runtime): void {
  const started = Date.now()
  offerRoutes(app, runtime)
  placeRoutes(app, runtime, started)
}

/** Providers and their models, agents and commands. */
function offerRoutes(app: Hono, runtime: Runtime): void {
  const builtInNames = new Set(Object.keys(builtins()))
  app.get(
    "/config/providers",
    documented({
      operationId: "config.providers",
      summary: "The runtime's providers and models, and each provider's default model",
      response: z.object({ providers: z.array(WireProvider), default: z.record(z.string(), z.string()) }),
    }),
    (c) => c.json({ providers: providersOf(runtime), default: defaultsOf(runtime) }),
  )
  app.get(
    "/provider",
    documented({
      operationId: "provider.list",
      summary: "The runtime's providers (all connected: the host configured them)",
      response: z.object({
        all: z.array(WireProvider),
        default: z.record(z.string(), z.string()),
        connected: z.array(z.string()),
      }),
    }),
    (c) => {
      const all = providersOf(runtime)
      return c.json({ all, default: defaultsOf(runtime), connected: all.map((provider) => provider.id) })
    },
  )
  app.get(
    "/agent",
    documented({ operationId: "app.agents", summary: "The runtime's agents", response: z.array(WireAgent) }),
    (c) =>
      c.json(Object.values(runtime.agents).map((agent) => toWireAgent(agent, builtInNames.has(agent.name)))),
  )
  app.get(
    "/command",
    documented({
      operationId: "command.list",
      summary: "The runtime's slash commands",
      response: z.array(WireCommand),
    }),
    (c) => {
      const skills = skillNames(runtime)
      return c.json(
        Object.entries(runtime.commands).map(([name, command]) => ({
          ...toWireCommand(name, command),
          // OpenCode's terminal UI tells a skill's command from others by it.
          ...(skills.has(name) ? { source: "skill" as const } : {}),
        })),
      )
    },
  )
}

/** Settings, paths and the project. */
function placeRoutes(app: Hono, runtime: Runtime, started: number): void {
  app.get(
    "/config",
    documented({
      operationId: "config.get",
      summary: "The runtime's settings as OpenCode's config",
      response: Config,
    }),
    (c) => c.json(configOf(runtime)),
  )
  app.get(
    "/path",
    documented({ operationId: "path.get", summary: "The directory the runtime serves", response: Path }),
    (c) => {
      const home = homedir()
      const directory = runtime.directory
      return c.json({
        home,
        state: join(home, ".local/state/agentloop"),
        config: join(home, ".config/agentloop"),
        worktree: directory,
        directory,
      })
    },
  )
  app.get(
    "/project/current",
    documented({
      operationId: "project.current",
      summary: "The runtime's directory as a project",
      response: Project,
    }),
    (c) =>
      c.json({
        id: PROJECT_ID,
        worktree: runtime.directory,
        time: { created: started, updated: started },
        sandboxes: [],
      }),
  )
}

function configOf(runtime: Runtime): z.infer<typeof Config> {
  const command = Object.fromEntries(
    Object.entries(runtime.commands).map(([name, info]) => {
      const { name: _, source: __, hints: ___, ...rest } = toWireCommand(name, info)
      return [name, rest]
    }),
  )
  const main = runtime.provider?.defaultModel().info
  const small = runtime.provider?.smallModel()?.info
  return {
    command,
    agent: {},
    mode: {},
    plugin: [],
    ...(main ? { model: `${main.providerID}/${main.id}` } : {}),
    ...(small ? { small_model: `${small.providerID}/${small.id}` } : {}),
  }
}
