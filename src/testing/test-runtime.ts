import type { ModelInfo, ModelInfoInput } from "../provider/model-info.js"
import { createProvider, type Provider } from "../provider/provider.js"
import { createRuntime, type Runtime, type RuntimeOptions } from "../runtime/runtime.js"
import { MemoryStorage } from "../storage/memory.js"
import { type Say, say, type Turn } from "./script.js"
import type { ScriptTools } from "./script-tools.js"
import { type ScriptedModel, scriptedModel } from "./scripted-model.js"

/**
 * What `createTestRuntime` takes: RuntimeOptions without the model and provider options (the
 * scripted model stands in for them), plus the script (`turns` or a ready `model`), the small
 * model and overrides of the model's info.
 */
export type TestRuntimeOptions<Tools extends ScriptTools | undefined = ScriptTools | undefined> = Omit<
  RuntimeOptions,
  "provider" | "tools" | "model" | "models"
> & {
  /** The runtime's own tools, as RuntimeOptions' `tools`; a `turns` function's `say` is typed from them. */
  tools?: Tools
  /**
   * What the model does, one turn per call; or a function of `say` typed from `tools` that
   * returns them. A scripted call of a tool the runtime lacks fails its model call with
   * ScriptedToolUnknownError (see `say.toolCall`'s `unavailable`). Ignored when `model` is given.
   */
  turns?: Turn[] | ((say: Say<Tools>) => Turn[])
  /** A scripted model made elsewhere, e.g. to share between runtimes; checked only as it was made. */
  model?: ScriptedModel
  /**
   * The provider's small model, which writes session titles. Default: one that always answers
   * "Test session", so titles never consume the turns scripted for the main model.
   */
  small?: ScriptedModel
  /** Overrides of the scripted model's info (limits, prices, capabilities). */
  modelInfo?: Partial<Omit<ModelInfoInput, "providerID" | "id">>
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

/** What `createTestRuntime` returns: the runtime, its two scripted models, and `verify`. */
export type TestRuntime = {
  /** The runtime, on fresh memory storage; its `provider` serves the two scripted models. */
  runtime: Runtime & { provider: Provider }
  /** The main model: the default of the runtime's provider, playing `turns`. */
  model: ScriptedModel
  /** The provider's small model, which writes session titles. */
  small: ScriptedModel
  /** Throws if the main model's script went wrong: a call of a tool the runtime lacks, turns never played. */
  verify(): void
}

/**
 * A runtime on fresh memory storage whose provider has one scripted model, for unit tests of
 * agents: `const { runtime, model } = createTestRuntime({ turns: [[say.text("Hi")]] })`.
 */
export function createTestRuntime<Tools extends ScriptTools | undefined = undefined>(
  options: TestRuntimeOptions<Tools> = {},
): TestRuntime {
  const { turns, model: given, small: givenSmall, modelInfo, ...runtimeOptions } = options
  const script = typeof turns === "function" ? turns(say) : (turns ?? [])
  // `runtime` is made below, before the model is first called.
  const model =
    given ?? scriptedModel(script, { knownTools: (name) => runtime.tools.get(name) !== undefined })
  const small =
    givenSmall ?? scriptedModel([], { modelId: "scripted-small", fallback: [say.text("Test session")] })
  const info: ModelInfoInput = { ...testModelInfo, ...modelInfo }
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
  return { runtime: runtime as Runtime & { provider: Provider }, model, small, verify: () => model.verify() }
}
