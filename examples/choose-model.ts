/**
 * The examples' model: a real one when the environment names one (ANTHROPIC_API_KEY,
 * OPENAI_API_KEY, or AGENTLOOP_BASE_URL for an OpenAI-compatible server, with AGENTLOOP_MODEL),
 * else a scripted one that plays the example's story offline.
 */
import { createAnthropic } from "@ai-sdk/anthropic"
import { createOpenAI } from "@ai-sdk/openai"
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import type { Provider } from "agentloop-sdk"
import { scriptedModel, type Turn } from "agentloop-sdk/testing"
import type { LanguageModel } from "ai"

export type ChosenModel = {
  label: string
  providerID: string
  modelID: string
  /** A model object, as `createRuntime({ model: { language, info } })` takes, never a model ID string. */
  language: Exclude<LanguageModel, string>
  info: Provider.ModelInfo
}

export const SCRIPTED_LABEL =
  "scripted: a fake model plays the agent's turns, offline (set ANTHROPIC_API_KEY or OPENAI_API_KEY for a real one)"

/**
 * `script`: the scripted model's turns, or one turn played for every call; `fallback`: the turn
 * played once the turns are used up.
 */
export function chooseModel(script: Turn[] | (() => Turn), fallback?: Turn): ChosenModel {
  const info: Provider.ModelInfo = {
    providerID: "demo",
    id: "demo",
    name: "Demo model",
    limit: { context: 128_000, output: 8_000 },
    cost: { input: 3, output: 15, cache: { read: 0.3, write: 3.75 } },
    capabilities: { reasoning: false, toolcall: true, attachment: false, temperature: true },
  }
  const entry = (language: Exclude<LanguageModel, string>, label: string) => ({
    label,
    providerID: "demo",
    modelID: "demo",
    language,
    info,
  })
  const env = process.env
  if (env.ANTHROPIC_API_KEY) {
    const id = env.AGENTLOOP_MODEL ?? "claude-3-5-haiku-latest"
    return entry(createAnthropic()(id), `Anthropic ${id} (ANTHROPIC_API_KEY is set)`)
  }
  if (env.OPENAI_API_KEY && !env.AGENTLOOP_BASE_URL) {
    const id = env.AGENTLOOP_MODEL ?? "gpt-4o-mini"
    return entry(createOpenAI()(id), `OpenAI ${id} (OPENAI_API_KEY is set)`)
  }
  if (env.AGENTLOOP_BASE_URL) {
    const id = env.AGENTLOOP_MODEL ?? "default"
    const provider = createOpenAICompatible({
      name: "custom",
      baseURL: env.AGENTLOOP_BASE_URL,
      apiKey: env.OPENAI_API_KEY,
    })
    return entry(provider(id), `${id} at ${env.AGENTLOOP_BASE_URL}`)
  }
  const model = Array.isArray(script)
    ? scriptedModel(script, fallback ? { fallback } : {})
    : scriptedModel([], { fallback: script() })
  return entry(model, SCRIPTED_LABEL)
}
