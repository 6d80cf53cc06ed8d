/**
 * Where a turn's instructions come from when they are not fixed text: project files such as
 * `AGENTS.md`, a skill catalogue, anything the host reads per turn. The runtime calls each source
 * once per turn, before the turn's first model call, and keeps what it answered for every step of
 * that turn (and for a compaction that answers it): a file changed during a turn is seen at the
 * next one, and the system prompt stays the same across the turn's steps (prompt caching). The
 * strings are appended to the system prompt where the source stands among `instructions`.
 */
export type InstructionSource = (
  input: InstructionSourceInput,
) => Promise<readonly string[]> | readonly string[]

/** What an `InstructionSource` is told of the turn it is called for. */
export type InstructionSourceInput = {
  /** The session the turn belongs to (a sub-agent's own session for a sub-agent's turn). */
  sessionID: string
  /** The session's working directory. */
  directory: string
  /** The name of the agent answering. */
  agent: string
  /** Aborts with the turn. */
  signal: AbortSignal
}
