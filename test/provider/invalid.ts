import { InvalidInputError } from "../../src/index.js"

/** The InvalidInputError that `run` throws; any other outcome fails the test. */
export function invalid(run: () => unknown): InvalidInputError {
  try {
    run()
  } catch (error) {
    if (InvalidInputError.isInstance(error)) return error
    throw error
  }
  throw new Error("expected an InvalidInputError")
}
