/**
 * Sortable, prefixed identifiers (`ses_`, `msg_`, `prt_`...): ascending ones sort oldest first,
 * descending ones newest first. Use it to make IDs the storage and the loop accept; see
 * docs/identifier.md.
 */
export * as Identifier from "./identifier.js"
