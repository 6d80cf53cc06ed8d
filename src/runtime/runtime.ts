import type { AgentInfo } from "../agent/info.js"
import { defaultAgent, getAgent, resolveAgents } from "../agent/resolve.js"
import { createBus } from "../bus/bus.js"
import type { CommandInfo } from "../command/info.js"
import { type CommandRunner, createCommandRunner } from "../command/run.js"
import { holdSessions } from "../coordination/hold.js"
import type { Coordinator } from "../coordination/port.js"
import { connectRelay, createForwarder } from "../coordination/relay.js"
import { parseInput } from "../error/invalid-input.js"
import { createGenerator } from "../id/identifier.js"
import { createLoop, type Loop } from "../loop/loop.js"
import type { LoopDeps } from "../loop/loop-deps.js"
import { createStatusRegistry } from "../loop/run.js"
import { loopSettings } from "../loop/settings.js"
import { providerFromOptions } from "../provider/from-options.js"
import { createProviderStream } from "../provider-call/provider-stream.js"
import type { PromptInput } from "../schema/prompt.js"
import { createMessageOwners } from "../session/message-owners.js"
import { createRevert, type Revert } from "../session/revert.js"
import { createSessionService, type SessionService } from "../session/service.js"
import { createSummary, type Summary } from "../session/summary.js"
import { fenceSessions } from "../session/writers.js"
import { createShell, type Shell } from "../shell/shell.js"
import { MemoryStorage } from "../storage/memory.js"
import type { Storage } from "../storage/port.js"
import type { TaskDeps } from "../task/deps.js"
import { runTask } from "../task/run-task.js"
import { createTodos, type Todos } from "../todo/todos.js"
import { createAskServices } from "./asks.js"
import { createLifecycle } from "./lifecycle.js"
import { Options, type RuntimeOptions } from "./options.js"
import { createRuntimeTools } from "./tools.js"
import type { Runtime, SessionApi } from "./types.js"

export type { CloseOptions } from "./lifecycle.js"
export type { AgentOptions, RuntimeOptions } from "./options.js"
export type { Runtime } from "./types.js"

type StoredAsks = ReturnType<typeof createAskServices>["stored"]
type ParsedOptions = ReturnType<typeof Options.parse>

/** The composition root: everything stateful belongs to the runtime it returns. */
export function createRuntime(options: RuntimeOptions = {}): Runtime {
  const parsed = parseInput("runtime options", Options, options)
  const { provider, storage, bus, coordinator, ids, owners } = foundations(parsed)
  const { assertOpen, assertStorageOpen, close } = createLifecycle()
  const base = { storage, bus, ids, assertOpen }
  const sessions = createSessionService({ ...base, ...owners, beforeRead: (id) => loop.repairIfIdle(id) })
  const forwarder =
    coordinator && forwarderFor(coordinator, { loop: () => loop, stored: () => stored, assertOpen })
  const { askTimeoutMs, nonInteractive, onPermission, onQuestion, approvalScope } = parsed
  const asks = { askTimeoutMs, nonInteractive, onPermission, onQuestion, approvalScope }
  const { permission, question, stored } = createAskServices(
    { ...base, ...asks, forwardElsewhere: forwarder?.forward },
    (call, decision) => loop.resume(call, decision),
  )
  const isBusy = async (id: string) => shell.isRunning(id) || loop.isBusy(id)
  const fileHistory = { ...base, snapshot: parsed.snapshot, isBusy }
  const summary = createSummary(fileHistory)
  const reverts = createRevert(fileHistory, summary)
  const todos = createTodos(base)
  const agents = resolveAgents(parsed.agents as Record<string, Partial<AgentInfo>> | undefined)
  const defaultAgentName = defaultAgent(agents, parsed.defaultAgent).name
  const task: TaskDeps = {
    ...{ ...base, agents, session: sessions },
    prompt: (input) => loop.intake.prompt(input, { child: true }),
    rulesFor: async (id, agent) => loop.rulesFor(await sessions.get(id), getAgent(agents, agent)),
  }
  const tools = createRuntimeTools(parsed, { agents, ask: question.ask, todos, task })
  // What the loop writes, which close() can cut off for the sessions whose turns it keeps.
  const fence = fenceSessions(storage)
  const fenced = { ...base, ...owners, storage: fence.storage, assertOpen: assertStorageOpen }
  const status = createStatusRegistry(bus)
  const loop = createLoop({
    ...loopSettings(parsed),
    ...{ bus, permission, provider, agents, tools, coordinator, assertOpen, asks: stored, status },
    ...{ storage: fence.storage, session: createSessionService(fenced), defaultAgent: defaultAgentName },
    ...loopExtras(parsed, owners.messageOwners, { shell: () => shell, reverts, summary, task }),
  })
  const shell = createShell({
    ...{ sessions, storage, tools, agents, provider, status, ownerOf: owners.messageOwners.ownerOf },
    ...{ defaultAgent: defaultAgentName, isBusy: (id) => loop.isBusy(id) },
    ...{ cleanup: reverts.cleanup, enterWork: loop.enterWork },
  })
  const relay = coordinator && connectRelay(coordinator, { bus, loop, permission, question })
  const disconnect = () => {
    relay?.()
    forwarder?.close()
  }
  const { commandInfos, commands } = commandsFor(parsed, agents, defaultAgentName, () => loop)
  const { on, onAny, stream, listenerCount } = bus
  return {
    ...{ provider, tools, agents, commands: commandInfos, directory: owners.directory },
    session: sessionApi({ sessions, loop, reverts, summary, todos, commands, shell, coordinator }),
    permission: { ask: permission.ask, list: permission.list, reply: permission.reply },
    question: { ask: question.ask, list: question.list, reply: question.reply, reject: question.reject },
    events: { on, onAny, stream, listenerCount },
    close: (closeOptions) =>
      close(() => ({ permission, question, fence, loop, disconnect, bus, storage }), closeOptions),
  }
}

/** What everything else is built on: the provider, storage, bus and coordinator, IDs, the directory. */
function foundations(parsed: ParsedOptions) {
  const provider = providerFromOptions(parsed)
  const storage: Storage = parsed.storage ?? new MemoryStorage()
  const bus = createBus(parsed.onListenerError ? { onListenerError: parsed.onListenerError } : {})
  const coordinator = parsed.coordinator === false ? undefined : (parsed.coordinator ?? storage.coordinator)
  const owners = { directory: parsed.directory ?? process.cwd(), messageOwners: createMessageOwners() }
  return { provider, storage, bus, coordinator, ids: createGenerator(), owners }
}

/** The slash commands of the options, and their runner: a command's prompt goes to the loop. */
function commandsFor(
  parsed: Pick<ParsedOptions, "commands">,
  agents: Record<string, AgentInfo>,
  defaultAgentName: string,
  loop: () => Loop,
) {
  const commandInfos = Object.freeze({ ...(parsed.commands ?? {}) }) as Record<string, CommandInfo>
  const commands = createCommandRunner({
    commands: commandInfos,
    agents,
    defaultAgent: () => defaultAgentName,
    prompt: (input: PromptInput) => loop().intake.prompt(input),
  })
  return { commandInfos, commands }
}

/**
 * With a coordinator: replies for sessions another process runs are forwarded to it, and answers
 * recorded for a process that stopped are acted on here.
 */
function forwarderFor(
  coordinator: Coordinator,
  parts: { loop: () => Loop; stored: () => StoredAsks; assertOpen: () => void },
) {
  return createForwarder(coordinator, {
    runsHere: (id) => parts.loop().runsHere(id),
    recorded: {
      waiting: (id) => parts.stored().hasRecorded(id),
      actOn: (id) => {
        parts.assertOpen()
        return parts.stored().resumeRecorded(id)
      },
    },
  })
}

/**
 * The loop's dependencies beyond the services: how every step calls the model (one stream per
 * runtime, whose caches later steps share), the file history around runs, and subtasks.
 */
function loopExtras(
  parsed: Pick<RuntimeOptions, "telemetry" | "snapshot">,
  messageOwners: LoopDeps["messageOwners"],
  parts: { shell: () => Shell; reverts: Revert; summary: Summary; task: TaskDeps },
): Pick<LoopDeps, "modelStream" | "messageOwners" | "snapshot" | "files" | "runTask"> {
  const { reverts, summary, task } = parts
  return {
    modelStream: createProviderStream(parsed.telemetry ? { telemetry: parsed.telemetry } : {}),
    messageOwners,
    snapshot: parsed.snapshot,
    // New work waits for the user's shell command: a run would close its answer as interrupted.
    files: {
      cleanup: (id) =>
        parts
          .shell()
          .settled(id)
          .then(() => reverts.cleanup(id)),
      summarize: summary.summarize,
    },
    runTask: (args, context) => runTask(task, args, context, { ask: false }),
  }
}

type SessionParts = {
  sessions: SessionService
  loop: Loop
  reverts: Revert
  summary: Summary
  todos: Todos
  commands: CommandRunner
  shell: Shell
  coordinator: Coordinator | undefined
}

/** `runtime.session`: the session service, with the loop's work and the file history on it. */
function sessionApi(parts: SessionParts): SessionApi {
  const { sessions, loop, reverts } = parts
  const { intake } = loop
  return {
    ...sessions,
    prompt: (input) => intake.prompt(input),
    loop: intake.loop,
    cancel: loop.cancel,
    status: loop.status,
    statuses: loop.statuses,
    compact: intake.compact,
    revert: reverts.revert,
    unrevert: reverts.unrevert,
    diff: parts.summary.diff,
    todos: parts.todos.get,
    command: parts.commands.command,
    shell: parts.shell.shell,
    remove: (sessionID: string) => removeSession(parts, sessionID),
  }
}

async function removeSession(parts: SessionParts, sessionID: string): Promise<void> {
  const { sessions, loop, coordinator } = parts
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
}
