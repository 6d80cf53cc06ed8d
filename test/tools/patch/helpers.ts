import { expect } from "vitest"
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
