export { InvalidInputError, parseInput } from "./invalid-input.js"
export { isNamedError, NamedError, type NamedErrorClass, type SerializedError } from "./named-error.js"
export { NotFoundError } from "./not-found.js"
export { RuntimeClosedError } from "./runtime-closed.js"
