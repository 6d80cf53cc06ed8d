export { Event } from "./events.js"
export * from "./schema.js"
