/**
 * The stored shape of a conversation: user and assistant messages (`Info`), their parts (text,
 * reasoning, files, tool calls with their states, steps, snapshots, patches), the errors a turn
 * can end with, and conversions to model messages and AI SDK UI messages. See docs/message.md.
 */
export * as MessageV2 from "./message-v2.js"
