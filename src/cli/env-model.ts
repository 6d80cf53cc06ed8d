import type { LanguageModel } from "ai"
import { MissingPackageError } from "../tools/index.js"
import type { Env } from "./args.js"
import { UsageError } from "./errors.js"
import { missingPackage } from "./missing-package.js"

/** The AI SDK provider packages the environment may call for; none is a dependency of agentloop-sdk. */
export type ProviderPackages = {
  anthropic: () => Promise<typeof import("@ai-sdk/anthropic")>
  openai: () => Promise<typeof import("@ai-sdk/openai")>
  compatible: () => Promise<typeof import("@ai-sdk/openai-compatible")>
}

const installed: ProviderPackages = {
  anthropic: () => import("@ai-sdk/anthropic"),
  openai: () => import("@ai-sdk/openai"),
  compatible: () => import("@ai-sdk/openai-compatible"),
}

/** A model the environment names, and a line saying which and why. */
export type EnvironmentModel = { model: Exclude<LanguageModel, string>; label: string }

/**
 * The model the environment names, as the examples choose theirs: ANTHROPIC_API_KEY, else
 * OPENAI_API_KEY (without AGENTLOOP_BASE_URL), else AGENTLOOP_BASE_URL for an OpenAI-compatible
 * server (with OPENAI_API_KEY as its key, if any); AGENTLOOP_MODEL picks the model ID. Throws
 * MissingPackageError when the provider package is not installed, UsageError when none is named.
 */
export async function modelFromEnvironment(
  env: Env,
  packages: ProviderPackages = installed,
): Promise<EnvironmentModel> {
  if (env.ANTHROPIC_API_KEY) {
    const id = env.AGENTLOOP_MODEL || "claude-sonnet-4-5"
    const { createAnthropic } = await load(packages.anthropic, "@ai-sdk/anthropic", "ANTHROPIC_API_KEY")
    const model = createAnthropic({ apiKey: env.ANTHROPIC_API_KEY })(id)
    return { model, label: `Anthropic ${id} (ANTHROPIC_API_KEY is set)` }
  }
  if (env.OPENAI_API_KEY && !env.AGENTLOOP_BASE_URL) {
    const id = env.AGENTLOOP_MODEL || "gpt-5"
    const { createOpenAI } = await load(packages.openai, "@ai-sdk/openai", "OPENAI_API_KEY")
    return {
      model: createOpenAI({ apiKey: env.OPENAI_API_KEY })(id),
      label: `OpenAI ${id} (OPENAI_API_KEY is set)`,
    }
  }
  if (env.AGENTLOOP_BASE_URL) {
    const id = env.AGENTLOOP_MODEL || "default"
    const { createOpenAICompatible } = await load(
      packages.compatible,
      "@ai-sdk/openai-compatible",
      "AGENTLOOP_BASE_URL",
    )
    const provider = createOpenAICompatible({
      name: "custom",
      baseURL: env.AGENTLOOP_BASE_URL,
      ...(env.OPENAI_API_KEY ? { apiKey: env.OPENAI_API_KEY } : {}),
    })
    return { model: provider(id), label: `${id} at ${env.AGENTLOOP_BASE_URL}` }
  }
  throw new UsageError({
    message:
      "No model: set ANTHROPIC_API_KEY, OPENAI_API_KEY or AGENTLOOP_BASE_URL (and AGENTLOOP_MODEL to pick one), or serve a module of your own",
  })
}

async function load<T>(importer: () => Promise<T>, name: string, variable: string): Promise<T> {
  try {
    return await importer()
  } catch (error) {
    if (!missingPackage(error, [name])) throw error
    throw MissingPackageError.of(`the model ${variable} names`, [name], [name])
  }
}
