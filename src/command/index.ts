export * as Command from "./command.js"
