import { expect } from "vitest"
import { createProvider, createRuntime, MemoryStorage } from "../../../src/index.js"
import { scriptedModel, type Turn, testModelInfo } from "../../../src/testing/index.js"
import { PatchFailedError } from "../../../src/tools/errors.js"

/** The PatchFailedError `work` throws; fails the test when it throws nothing or something else. */
export function patchFailure(work: () => unknown): PatchFailedError {
  try {
    work()
  } catch (error) {
    expect(PatchFailedError.isInstance(error), String(error)).toBe(true)
    return error as PatchFailedError
  }
  throw new Error("expected a PatchFailedError")
}

/**
 * A runtime on memory storage whose one model has the ID `modelID` (the tools a step is offered
 * depend on it), playing `turns`; the rest of `options` as createRuntime takes them.
 */
export function runtimeOnModel(
  modelID: string,
  turns: Turn[],
  options: Omit<NonNullable<Parameters<typeof createRuntime>[0]>, "provider" | "storage">,
) {
  const model = scriptedModel(turns, { modelId: modelID })
  const ref = { providerID: "openai", modelID }
  const info = { ...testModelInfo, ...ref, id: modelID, name: modelID }
  const provider = createProvider({ models: [{ ...ref, language: model, info }], default: ref })
  return { runtime: createRuntime({ ...options, storage: new MemoryStorage(), provider }), model }
}
