/**
 * Slash commands: a named prompt template with `$1..$n` and `$ARGUMENTS`, run as a prompt or as
 * a subtask. Use it to define commands for `RuntimeOptions`; see docs/commands.md.
 */
export * as Command from "./command.js"
