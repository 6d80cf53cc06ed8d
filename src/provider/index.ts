export * as Provider from "./provider-namespace.js"
