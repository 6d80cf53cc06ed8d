/**
 * Tools the model can call: `Tool.define` with a zod schema, the context a tool runs with,
 * adapting AI SDK and MCP tools, output truncation and the registry. See docs/tools.md.
 */
export * as Tool from "./tool-namespace.js"
