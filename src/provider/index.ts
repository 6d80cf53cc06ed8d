/**
 * Models and what the runtime knows about them: resolving a `provider/model` string through
 * the registry, model info (limits, costs, capabilities), usage and cost of a step, and the
 * classification of provider errors into `MessageV2` errors. Use it to plug in providers and to
 * read model info; see docs/provider.md.
 */
export * as Provider from "./provider-namespace.js"
