export { ProjectConfigError } from "./errors.js"
export { loadProjectConfig } from "./load.js"
export type { ProjectConfig, ProjectConfigOptions } from "./options.js"
export { overlayAgents } from "./overlay.js"
