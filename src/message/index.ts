export * as MessageV2 from "./message-v2.js"
