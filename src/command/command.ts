export { UnknownCommandError } from "./errors.js"
export { expand } from "./expand.js"
export { Info } from "./info.js"
export { CommandInput } from "./input.js"
