// Shared with the git snapshot, which must not follow an agent's links either.
export { within } from "../../util/confined-path.js"
