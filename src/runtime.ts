import type { Info as AgentInfo } from "./agent/info.js"
import { defaultAgent, getAgent, resolveAgents } from "./agent/resolve.js"
import { createAskServices } from "./ask/services.js"
import { type Bus, createBus, type Events } from "./bus/bus.js"
import type { Info as CommandInfo } from "./command/info.js"
import { type CommandRunner, createCommandRunner } from "./command/run.js"
import { CompactionConfig } from "./compaction/config.js"
import { holdSessions } from "./coordination/hold.js"
import { connectRelay, createForwarder } from "./coordination/relay.js"
import { parseInput } from "./error/invalid-input.js"
import { RuntimeClosedError } from "./error/runtime-closed.js"
import { createGenerator } from "./id/identifier.js"
import type { Hooks } from "./loop/hooks.js"
import { createLoop } from "./loop/loop.js"
import { RetryOptions } from "./loop/retry.js"
import { createStatusRegistry } from "./loop/status-registry.js"
import { UnknownError } from "./message/errors.js"
import type { Ruleset } from "./permission/schema.js"
import type { PermissionService } from "./permission/service.js"
import { providerFromOptions } from "./provider/from-options.js"
import type { Provider } from "./provider/provider.js"
import type { QuestionService } from "./question/service.js"
import { createQuestionTool } from "./question/tool.js"
import { Options, type RuntimeOptions } from "./runtime-options.js"
import { createMessageOwners } from "./session/message-owners.js"
import { createRevert, type Revert } from "./session/revert.js"
import { createSessionService, type SessionService } from "./session/service.js"
import { createSummary, type Summary } from "./session/summary.js"
import { createProviderStream } from "./provider-call/provider-stream.js"
import { MemoryStorage } from "./storage/memory.js"
import type { Storage } from "./storage/port.js"
import { fenceSessions } from "./storage/session-fence.js"
import type { TaskDeps } from "./task/deps.js"
import { offersTask, taskDescription } from "./task/description.js"
import { runTask } from "./task/run-task.js"
import { createTaskTool } from "./task/tool.js"
import { createTodos, type Todos } from "./todo/todos.js"
import { createTodoTools } from "./todo/tools.js"
import { fromAISet } from "./tool/from-ai.js"
import { createToolRegistry, type ToolRegistry } from "./tool/registry.js"
import type { Info as ToolInfo } from "./tool/tool.js"

type Loop = ReturnType<typeof createLoop>

export type { RuntimeOptions } from "./runtime-options.js"

export type Runtime = {
  /** The provider given in the options, or built from `model` / `models`, if any. */
  provider: Provider | undefined
  /** The runtime's tools: the built-ins it serves (options `question`, `task`, `todos`) and `options.tools`. */
  tools: ToolRegistry
  /** The agents: built-ins merged with `options.agents`. */
  agents: Record<string, AgentInfo>
  session: SessionService & {
    prompt(input: Parameters<Loop["prompt"]>[0]): ReturnType<Loop["prompt"]>
    loop: Loop["loop"]
    cancel: Loop["cancel"]
    status: Loop["status"]
    compact: Loop["compact"]
    /** Files and history back to just before a message (or part); refused while the session runs. */
    revert: Revert["revert"]
    /** Undoes the revert while nothing new was prompted. */
    unrevert: Revert["unrevert"]
    /** What the session's steps changed in the files, or one message's turn. */
    diff: Summary["diff"]
    /** Runs a slash command: its template expanded with the arguments, as a prompt or a subtask. */
    command: CommandRunner["command"]
    /** The session's to-do list, [] until the model writes one. */
    todos: Todos["get"]
  }
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

export type CloseOptions = {
  /** What becomes of permission requests and questions still waiting. Default "keep". */
  asks?: "keep" | "reject"
}

/** The composition root: everything stateful belongs to the runtime it returns. */
export function createRuntime(options: RuntimeOptions = {}): Runtime {
  const parsed = parseInput("runtime options", Options, options)
  const provider = providerFromOptions(parsed)
  const storage: Storage = parsed.storage ?? new MemoryStorage()
  const bus: Bus = createBus(parsed.onListenerError ? { onListenerError: parsed.onListenerError } : {})
  const ids = createGenerator()
  let closed: Promise<void> | undefined
  let storageClosed = false
  // Callers are refused as soon as close() starts; the loops it stops still write their
  // endings (aborted message, interrupted tools) until storage closes.
  const assertOpen = () => {
    if (closed) throw new RuntimeClosedError({ message: "The runtime is closed" })
  }
  const assertStorageOpen = () => {
    if (storageClosed) throw new RuntimeClosedError({ message: "The runtime is closed" })
  }
  const coordinator = parsed.coordinator === false ? undefined : (parsed.coordinator ?? storage.coordinator)
  const messageOwners = createMessageOwners()
  const sessionDeps = {
    storage,
    bus,
    ids,
    directory: parsed.directory ?? process.cwd(),
    assertOpen,
    messageOwners,
  }
  const sessions = createSessionService({ ...sessionDeps, beforeRead: (id) => loop.repairIfIdle(id) })
  const { permission, question, stored } = createAskServices(
    {
      storage,
      bus,
      ids,
      assertOpen,
      askTimeoutMs: parsed.askTimeoutMs,
      nonInteractive: parsed.nonInteractive,
      onPermission: parsed.onPermission,
      onQuestion: parsed.onQuestion,
      approvalScope: parsed.approvalScope ?? "session",
      forwardElsewhere: coordinator && createForwarder(coordinator, (sessionID) => loop.runsHere(sessionID)),
    },
    (call, decision) => loop.resume(call, decision),
  )
  const fileHistory = {
    storage,
    bus,
    snapshot: parsed.snapshot,
    assertOpen,
    isBusy: (sessionID: string) => loop.isBusy(sessionID),
  }
  const summary = createSummary(fileHistory)
  const reverts = createRevert(fileHistory, summary)
  const todos = createTodos({ storage, bus, assertOpen })
  const agents = resolveAgents(parsed.agents as Record<string, Partial<AgentInfo>> | undefined)
  const defaultAgentName = defaultAgent(agents, parsed.defaultAgent).name
  const taskDeps: TaskDeps = {
    agents,
    storage,
    bus,
    session: sessions,
    prompt: (input) => loop.prompt(input, { child: true }),
    rulesFor: async (sessionID, agent) =>
      loop.rulesFor(await sessions.get(sessionID), getAgent(agents, agent)),
  }
  const taskTool = createTaskTool(taskDeps)
  // Each built-in only where it serves: every tool offered costs every request its schema.
  const tools = createToolRegistry(
    [
      ...((parsed.question ?? parsed.onQuestion !== undefined) ? [createQuestionTool(question.ask)] : []),
      ...((parsed.task ?? offersTask(agents, Object.keys(parsed.agents ?? {}))) ? [taskTool] : []),
      ...(parsed.todos ? createTodoTools(todos) : []),
      ...(Array.isArray(parsed.tools) ? parsed.tools : fromAISet(parsed.tools ?? {})),
    ],
    new Map([[taskTool as ToolInfo, (ruleset: Ruleset) => taskDescription(agents, ruleset)]]),
  )
  // What the loop writes, which close() can cut off for the sessions whose turns it keeps.
  const fence = fenceSessions(storage)
  const loop = createLoop({
    storage: fence.storage,
    bus,
    session: createSessionService({ ...sessionDeps, storage: fence.storage, assertOpen: assertStorageOpen }),
    permission,
    provider,
    agents,
    defaultAgent: defaultAgentName,
    tools,
    snapshot: parsed.snapshot,
    files: { cleanup: reverts.cleanup, summarize: summary.summarize },
    runTask: (args, context) => runTask(taskDeps, args, context, { ask: false }),
    status: createStatusRegistry(bus),
    retry: RetryOptions.parse(parsed.retry ?? {}),
    streamIdleTimeoutMs: parsed.streamIdleTimeoutMs,
    modelStream: createProviderStream(parsed.telemetry ? { telemetry: parsed.telemetry } : {}),
    asks: stored,
    permissionRules: parsed.permission ?? [],
    instructions: parsed.instructions ?? [],
    git: parsed.git,
    environment: parsed.environment ?? "date",
    titles: parsed.titles,
    hooks: (parsed.hooks ?? {}) as Hooks,
    onToolError: parsed.onToolError,
    compaction: CompactionConfig.parse(parsed.compaction ?? {}),
    rejection: parsed.rejection ?? "stop",
    coordinator,
    messageOwners,
    assertOpen,
  })
  const disconnect =
    coordinator &&
    connectRelay(coordinator, {
      bus,
      loop,
      permission,
      question,
      onError: (error, sessionID) => {
        const message = error instanceof Error ? error.message : String(error)
        bus.publish("session.error", { sessionID, error: new UnknownError({ message }).toObject() })
      },
    })

  const commands = createCommandRunner({
    commands: (parsed.commands ?? {}) as Record<string, CommandInfo>,
    agents,
    defaultAgent: () => defaultAgentName,
    prompt: (input) => loop.prompt(input),
  })

  const { on, onAny, stream, listenerCount } = bus
  return {
    provider,
    tools,
    agents,
    session: {
      ...sessions,
      prompt: (input) => loop.prompt(input),
      loop: loop.loop,
      cancel: loop.cancel,
      status: loop.status,
      compact: loop.compact,
      revert: reverts.revert,
      unrevert: reverts.unrevert,
      diff: summary.diff,
      todos: todos.get,
      command: commands.command,
      async remove(sessionID: string): Promise<void> {
        // A loop still running would write into a session that no longer exists. A Set, so that
        // parent links that loop (stored before cycles were refused) end the walk.
        const tree = new Set([sessionID])
        for (const id of tree) for (const child of await sessions.children(id)) tree.add(child.id)
        await loop.stop([...tree])
        // Runs of other processes stop too, and none starts until the rows are gone.
        const held = coordinator ? await holdSessions(coordinator, [...tree], loop.cancelAnywhere) : []
        try {
          await sessions.remove(sessionID)
        } finally {
          await Promise.all(held.map((lease) => lease.release().catch(() => undefined)))
        }
      },
    },
    permission: { ask: permission.ask, list: permission.list, reply: permission.reply },
    question: { ask: question.ask, list: question.list, reply: question.reply, reject: question.reject },
    events: { on, onAny, stream, listenerCount },
    close(options = {}) {
      closed ??= (async () => {
        try {
          if (options.asks !== "reject") {
            // Frozen first: a caller rejected here must not write its tool's ending.
            fence.freeze([...permission.waitingSessions(), ...question.waitingSessions()])
            permission.detach()
            question.detach()
          }
          await loop.close()
          await permission.close()
          await question.close()
        } finally {
          storageClosed = true
          disconnect?.()
          bus.close()
          await storage.close()
        }
      })()
      return closed
    },
  }
}
