export * as Tool from "./tool-namespace.js"
