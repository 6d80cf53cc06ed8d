export * from "./errors.js"
export { Event } from "./events.js"
export * from "./info.js"
export * from "./part.js"
