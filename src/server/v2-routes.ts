import type { Hono } from "hono"
import { z } from "zod"
import type { Runtime } from "../runtime/runtime.js"
import { documented } from "./route-doc.js"
import { modelsOf } from "./wire/catalogue.js"
import { PROJECT_ID } from "./wire/session.js"

const Request = { headers: {}, body: {} }
const Listing = (item: z.ZodType) =>
  z.object({
    location: z.object({
      directory: z.string(),
      project: z.object({ id: z.string(), directory: z.string() }),
    }),
    data: z.array(item),
  })

/**
 * The newer `/api` reads of agents, models, providers and commands that OpenCode's terminal UI
 * makes beside the older routes, from the same runtime.
 */
export function v2Routes(app: Hono, runtime: Runtime): void {
  const location = { directory: runtime.directory, project: { id: PROJECT_ID, directory: runtime.directory } }
  const list = (name: string, summary: string, data: () => unknown[]) =>
    app.get(
      `/api/${name}`,
      documented({
        operationId: `v2.${name}.list`,
        summary,
        response: Listing(z.record(z.string(), z.unknown())),
      }),
      (c) => c.json({ location, data: data() }),
    )
  list("agent", "The runtime's agents", () =>
    Object.values(runtime.agents).map((agent) => ({
      id: agent.name,
      ...(agent.model ? { model: { id: agent.model.modelID, providerID: agent.model.providerID } } : {}),
      request: Request,
      ...(agent.prompt === undefined ? {} : { system: agent.prompt }),
      ...(agent.description === undefined ? {} : { description: agent.description }),
      mode: agent.mode,
      hidden: agent.hidden ?? false,
      ...(agent.steps === undefined ? {} : { steps: agent.steps }),
      permissions: agent.permission.map((rule) => ({
        action: rule.permission,
        resource: rule.pattern,
        effect: rule.action,
      })),
    })),
  )
  list("model", "The runtime's models", () =>
    modelsOf(runtime).map(({ language, info }) => ({
      id: info.id,
      providerID: info.providerID,
      name: info.name,
      api: { id: info.id, type: "aisdk", package: typeof language === "string" ? "" : language.provider },
      capabilities: {
        tools: info.capabilities.toolcall,
        input: info.capabilities.attachment ? ["text", "image", "pdf"] : ["text"],
        output: ["text"],
      },
      request: Request,
      variants: [],
      time: { released: 0 },
      cost: info.cost ? [{ input: info.cost.input, output: info.cost.output, cache: info.cost.cache }] : [],
      status: "active",
      enabled: true,
      limit: info.limit ?? { context: 0, output: 0 },
    })),
  )
  list("provider", "The runtime's providers", () =>
    [...new Set(modelsOf(runtime).map(({ info }) => info.providerID))].map((id) => ({
      id,
      name: id,
      api: { type: "aisdk", package: "" },
      request: Request,
    })),
  )
  list("command", "The runtime's slash commands", () =>
    Object.entries(runtime.commands).map(([name, command]) => ({
      name,
      template: command.template,
      ...(command.description === undefined ? {} : { description: command.description }),
      ...(command.agent === undefined ? {} : { agent: command.agent }),
      ...(command.model
        ? { model: { id: command.model.modelID, providerID: command.model.providerID } }
        : {}),
      ...(command.subtask === undefined ? {} : { subtask: command.subtask }),
    })),
  )
}
