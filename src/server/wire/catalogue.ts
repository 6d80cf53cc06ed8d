import { z } from "zod"
import type { AgentInfo } from "../../agent/info.js"
import type { CommandInfo } from "../../command/info.js"
import type { Model } from "../../provider/provider.js"
import type { Runtime } from "../../runtime/runtime.js"

/**
 * The runtime's models, agents and commands in the shapes of OpenCode's config and provider
 * routes. What this library does not track (release dates, API URLs, audio or video input) is
 * answered with OpenCode's empty values, never invented.
 */
const Flags = z.object({
  text: z.boolean(),
  audio: z.boolean(),
  image: z.boolean(),
  video: z.boolean(),
  pdf: z.boolean(),
})
const Prices = z.object({
  input: z.number(),
  output: z.number(),
  cache: z.object({ read: z.number(), write: z.number() }),
})

export const WireModel = z.object({
  id: z.string(),
  providerID: z.string(),
  api: z.object({ id: z.string(), url: z.string(), npm: z.string() }),
  name: z.string(),
  capabilities: z.object({
    temperature: z.boolean(),
    reasoning: z.boolean(),
    attachment: z.boolean(),
    toolcall: z.boolean(),
    input: Flags,
    output: Flags,
    interleaved: z.boolean(),
  }),
  cost: Prices,
  limit: z.object({ context: z.number(), input: z.number().optional(), output: z.number() }),
  status: z.enum(["alpha", "beta", "deprecated", "active"]),
  options: z.record(z.string(), z.unknown()),
  headers: z.record(z.string(), z.string()),
  release_date: z.string(),
})
export const WireProvider = z.object({
  id: z.string(),
  name: z.string(),
  source: z.enum(["env", "config", "custom", "api"]),
  env: z.array(z.string()),
  options: z.record(z.string(), z.unknown()),
  models: z.record(z.string(), WireModel),
})
export type WireProvider = z.infer<typeof WireProvider>

export const WireAgent = z.object({
  name: z.string(),
  description: z.string().optional(),
  mode: z.enum(["subagent", "primary", "all"]),
  native: z.boolean(),
  hidden: z.boolean().optional(),
  topP: z.number().optional(),
  temperature: z.number().optional(),
  permission: z.array(z.object({ permission: z.string(), pattern: z.string(), action: z.string() })),
  model: z.object({ modelID: z.string(), providerID: z.string() }).optional(),
  prompt: z.string().optional(),
  options: z.record(z.string(), z.unknown()),
  steps: z.number().optional(),
})
export const WireCommand = z.object({
  name: z.string(),
  description: z.string().optional(),
  agent: z.string().optional(),
  model: z.string().optional(),
  source: z.enum(["command", "mcp", "skill"]),
  template: z.string(),
  subtask: z.boolean().optional(),
  hints: z.array(z.string()),
})

/** Every model the provider serves; a provider without `models()` offers its default and small ones. */
export function modelsOf(runtime: Runtime): Model[] {
  const provider = runtime.provider
  if (!provider) return []
  if (provider.models) return provider.models()
  const small = provider.smallModel()
  return small ? [provider.defaultModel(), small] : [provider.defaultModel()]
}

export function providersOf(runtime: Runtime): WireProvider[] {
  const providers = new Map<string, WireProvider>()
  for (const model of modelsOf(runtime)) {
    const id = model.info.providerID
    const provider = providers.get(id) ?? { id, name: id, source: "config", env: [], options: {}, models: {} }
    provider.models[model.info.id] = toWireModel(model)
    providers.set(id, provider)
  }
  return [...providers.values()]
}

/** OpenCode's `default`: the model each provider offers first, by provider ID. */
export function defaultsOf(runtime: Runtime): Record<string, string> {
  const defaults: Record<string, string> = {}
  const main = runtime.provider?.defaultModel().info
  if (main) defaults[main.providerID] = main.id
  for (const { info } of modelsOf(runtime)) defaults[info.providerID] ??= info.id
  return defaults
}

function toWireModel({ language, info }: Model): z.infer<typeof WireModel> {
  const none = { text: false, audio: false, image: false, video: false, pdf: false }
  const files = info.capabilities.attachment
  return {
    id: info.id,
    providerID: info.providerID,
    api: { id: info.id, url: "", npm: typeof language === "string" ? "" : language.provider },
    name: info.name,
    capabilities: {
      ...info.capabilities,
      input: { ...none, text: true, image: files, pdf: files },
      output: { ...none, text: true },
      interleaved: false,
    },
    cost: info.cost
      ? { input: info.cost.input, output: info.cost.output, cache: info.cost.cache }
      : { input: 0, output: 0, cache: { read: 0, write: 0 } },
    limit: info.limit ?? { context: 0, output: 0 },
    status: "active",
    options: {},
    headers: {},
    release_date: "",
  }
}

export function toWireAgent(agent: AgentInfo, builtIn: boolean): z.infer<typeof WireAgent> {
  const { rejection: _, model, ...rest } = agent
  return {
    ...rest,
    native: builtIn,
    ...(model ? { model: { modelID: model.modelID, providerID: model.providerID } } : {}),
    options: {},
  }
}

export function toWireCommand(name: string, command: CommandInfo): z.infer<typeof WireCommand> {
  const { model, ...rest } = command
  return {
    name,
    ...rest,
    ...(model ? { model: `${model.providerID}/${model.modelID}` } : {}),
    source: "command",
    hints: [...new Set(command.template.match(/\$(\d+|ARGUMENTS)/g) ?? [])],
  }
}
