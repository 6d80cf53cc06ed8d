import type { AgentInfo } from "../agent/info.js"
import type { Events } from "../bus/bus.js"
import type { CommandInfo } from "../command/info.js"
import type { CommandRunner } from "../command/run.js"
import type { Loop } from "../loop/loop.js"
import type { PermissionService } from "../permission/service.js"
import type { Provider } from "../provider/provider.js"
import type { QuestionService } from "../question/service.js"
import type { Revert } from "../session/revert.js"
import type { SessionService } from "../session/service.js"
import type { Summary } from "../session/summary.js"
import type { Shell } from "../shell/shell.js"
import type { Todos } from "../todo/todos.js"
import type { ToolRegistry } from "../tool/registry.js"
import type { CloseOptions } from "./lifecycle.js"

type Intake = Loop["intake"]

export type SessionApi = SessionService & {
  prompt(input: Parameters<Intake["prompt"]>[0]): ReturnType<Intake["prompt"]>
  loop: Intake["loop"]
  cancel: Loop["cancel"]
  status: Loop["status"]
  /** The sessions this runtime is running or retrying now, by ID; idle sessions are absent. */
  statuses: Loop["statuses"]
  compact: Intake["compact"]
  /** Files and history back to just before a message (or part); refused while the session runs. */
  revert: Revert["revert"]
  /** Undoes the revert while nothing new was prompted. */
  unrevert: Revert["unrevert"]
  /** What the session's steps changed in the files, or one message's turn. */
  diff: Summary["diff"]
  /** Runs a slash command: its template expanded with the arguments, as a prompt or a subtask. */
  command: CommandRunner["command"]
  /**
   * Runs a command line the user typed with the runtime's `bash` tool, recorded in the session (a
   * user message, and an answer holding the bash call) without calling a model or asking
   * permission; resolves with that answer once the command ends. Refused with BusyError while
   * the session runs; a prompt sent meanwhile waits for the command; cancel aborts it.
   */
  shell: Shell["shell"]
  /** The session's to-do list, [] until the model writes one. */
  todos: Todos["get"]
}

/**
 * A running agentloop: the services (`session`, `permission`, `question`, `events`, ...) over one
 * storage, provider and set of tools and agents. Make one with `createRuntime` and close it with
 * `close()`; after that each service throws `RuntimeClosedError`.
 */
export type Runtime = {
  /** The provider given in the options, or built from `model` / `models`, if any. */
  provider: Provider | undefined
  /** The runtime's tools: the built-ins it serves (options `question`, `task`, `todos`) and `options.tools`. */
  tools: ToolRegistry
  /** The agents: built-ins merged with `options.agents`. */
  agents: Record<string, AgentInfo>
  /** The slash commands of `options.commands`, by name. */
  commands: Readonly<Record<string, CommandInfo>>
  /** The directory sessions and tools work in: `options.directory`, or the process's at creation. */
  directory: string
  session: SessionApi
  permission: Pick<PermissionService, "ask" | "list" | "reply">
  question: Pick<QuestionService, "ask" | "list" | "reply" | "reject">
  events: Events
  /**
   * Ends running turns as a cancel does, ends event streams, then closes the storage. Calls made
   * afterwards fail with RuntimeClosedError. Turns waiting for a permission reply or an answer
   * are left exactly as a crash would leave them (`asks: "keep"`, the default): their requests
   * stay stored and the next process resumes them when answered, while callers waiting here get
   * RuntimeClosedError. `asks: "reject"` rejects them instead, ending those turns too.
   */
  close(options?: CloseOptions): Promise<void>
}
