/**
 * Deciding whether a tool call may run: rules (allow, deny, ask) matched by permission and
 * pattern, the pending request and its answer, approvals remembered for a session, and the errors
 * a refused call raises. See docs/permission.md.
 */
export * as Permission from "./permission.js"
