import type { CommandRunner } from "../command/run.js"
import { holdSessions } from "../coordination/hold.js"
import type { Coordinator } from "../coordination/port.js"
import type { createLoop } from "../loop/loop.js"
import type { Revert } from "../session/revert.js"
import type { SessionService } from "../session/service.js"
import type { Summary } from "../session/summary.js"
import type { Shell } from "../shell/shell.js"
import type { Todos } from "../todo/todos.js"
import type { SessionApi } from "./types.js"

/** `runtime.session`: the session service, with the loop's work and the file history on it. */
export function createSessionApi(parts: {
  sessions: SessionService
  loop: ReturnType<typeof createLoop>
  reverts: Revert
  summary: Summary
  todos: Todos
  commands: CommandRunner
  shell: Shell
  coordinator: Coordinator | undefined
}): SessionApi {
  const { sessions, loop, reverts, coordinator } = parts
  return {
    ...sessions,
    prompt: (input) => loop.prompt(input),
    loop: loop.loop,
    cancel: loop.cancel,
    status: loop.status,
    statuses: loop.statuses,
    compact: loop.compact,
    revert: reverts.revert,
    unrevert: reverts.unrevert,
    diff: parts.summary.diff,
    todos: parts.todos.get,
    command: parts.commands.command,
    shell: parts.shell.shell,
    async remove(sessionID: string): Promise<void> {
      // A loop still running would write into a session that no longer exists. A Set, so that
      // parent links that loop (stored before cycles were refused) end the walk.
      const tree = new Set([sessionID])
      for (const id of tree) for (const child of await sessions.children(id)) tree.add(child.id)
      await loop.stop([...tree])
      // Stop cancelled their shell commands too; their last writes land before the rows go.
      await Promise.all([...tree].map(parts.shell.settled))
      // Runs of other processes stop too, and none starts until the rows are gone.
      const held = coordinator ? await holdSessions(coordinator, [...tree], loop.cancelAnywhere) : []
      try {
        await sessions.remove(sessionID)
        loop.forget([...tree])
      } finally {
        await Promise.all(held.map((lease) => lease.release().catch(() => undefined)))
      }
    },
  }
}
