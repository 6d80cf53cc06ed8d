/**
 * Sessions: the stored conversation (`Info`), the prompt input, the loop that runs turns, and
 * the session service behind `runtime.session` (create, prompt, cancel, fork, revert, status).
 * See docs/session.md.
 */
export * as Session from "./session-namespace.js"
