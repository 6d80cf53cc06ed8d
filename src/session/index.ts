export * as Session from "./session.js"
