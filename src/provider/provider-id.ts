import type { LanguageModel } from "ai"
import type { ModelRef } from "../message/part.js"

/** An AI SDK language model object (not a model ID string for the global provider). */
export type LanguageModelObject = Exclude<LanguageModel, string>

// Reported names whose first segment is not the provider: Vertex and Bedrock name the platform
// after the vendor ("google.vertex.chat") or the vendor after the platform ("vertex.anthropic.messages").
const PREFIXES: readonly [prefix: string, providerID: string][] = [
  ["google.vertex.", "google-vertex"],
  ["vertex.anthropic.", "google-vertex-anthropic"],
  ["bedrock.", "amazon-bedrock"],
]

/**
 * The provider ID of a name an AI SDK model reports as its `provider`: the part before the API
 * it uses ("anthropic.messages" is "anthropic", "openai.responses" "openai", "google.generative-ai"
 * "google"), with Vertex as "google-vertex" / "google-vertex-anthropic" and Bedrock as "amazon-bedrock".
 */
export function providerIDOf(reported: string): string {
  for (const [prefix, providerID] of PREFIXES) if (reported.startsWith(prefix)) return providerID
  const dot = reported.indexOf(".")
  return dot > 0 ? reported.slice(0, dot) : reported
}

/** The model reference of an AI SDK model, from its own `provider` and `modelId`. */
export function modelRefOf(model: LanguageModelObject): ModelRef {
  return { providerID: providerIDOf(model.provider), modelID: model.modelId }
}
