export * as Permission from "./permission.js"
