export { UnknownCommandError } from "./errors.js"
export { expand } from "./expand.js"
export { CommandInput, Info } from "./info.js"
