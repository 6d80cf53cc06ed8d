/**
 * Agents: a named mode, model, prompt, permission rules and tools a session runs with. Holds the
 * built-in and coding agents, the override schema, resolution of the configured agents and the
 * system prompt. Use it to define or override agents; see docs/agents.md.
 */
export * as Agent from "./agent-namespace.js"
