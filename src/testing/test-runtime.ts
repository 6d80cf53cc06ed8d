import type { ModelInfo } from "../provider/model-info.js"
import { createProvider, type Provider } from "../provider/provider.js"
import { createRuntime, type Runtime, type RuntimeOptions } from "../runtime.js"
import { MemoryStorage } from "../storage/memory.js"
import { say } from "./script.js"
import { type ScriptedModel, scriptedModel, type Turn } from "./scripted-model.js"

export type TestRuntimeOptions = Omit<RuntimeOptions, "provider"> & {
  /** What the model does, one turn per call. Ignored when `model` is given. */
  turns?: Turn[]
  /** A scripted model made elsewhere, e.g. to share between runtimes. */
  model?: ScriptedModel
  /**
   * The provider's small model, which writes session titles. Default: one that always answers
   * "Test session", so titles never consume the turns scripted for the main model.
   */
  small?: ScriptedModel
  /** Overrides of the scripted model's info (limits, prices, capabilities). */
  modelInfo?: Partial<Omit<ModelInfo, "providerID" | "id">>
}

/** The scripted model's info: a 200K window and Sonnet-like prices, so cost assertions have round numbers. */
export const testModelInfo: ModelInfo = {
  providerID: "scripted",
  id: "scripted-model",
  name: "Scripted model",
  limit: { context: 200_000, output: 32_000 },
  cost: { input: 3, output: 15, cache: { read: 0.3, write: 3.75 } },
  capabilities: { reasoning: true, toolcall: true, attachment: true, temperature: true },
}

/**
 * A runtime on fresh memory storage whose provider has one scripted model, for unit tests of
 * agents: `const { runtime, model } = createTestRuntime({ turns: [[say.text("Hi")]] })`.
 */
export function createTestRuntime(options: TestRuntimeOptions = {}): {
  runtime: Runtime & { provider: Provider }
  model: ScriptedModel
  small: ScriptedModel
} {
  const { turns, model: given, small: givenSmall, modelInfo, ...runtimeOptions } = options
  const model = given ?? scriptedModel(turns ?? [])
  const small =
    givenSmall ?? scriptedModel([], { modelId: "scripted-small", fallback: [say.text("Test session")] })
  const info: ModelInfo = { ...testModelInfo, ...modelInfo }
  const ref = { providerID: info.providerID, modelID: info.id }
  const smallRef = { providerID: info.providerID, modelID: "scripted-small" }
  const provider = createProvider({
    models: [
      { ...ref, language: model, info },
      { ...smallRef, language: small, info: { ...info, id: smallRef.modelID, name: "Scripted small model" } },
    ],
    default: ref,
    small: smallRef,
  })
  const runtime = createRuntime({ storage: new MemoryStorage(), ...runtimeOptions, provider })
  // The provider was given, so runtime.provider is always there.
  return { runtime: runtime as Runtime & { provider: Provider }, model, small }
}
