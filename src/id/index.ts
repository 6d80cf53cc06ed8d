export * as Identifier from "./identifier.js"
