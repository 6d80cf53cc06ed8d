export * as Agent from "./agent-namespace.js"
