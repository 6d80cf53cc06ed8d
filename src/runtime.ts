import type { Info as AgentInfo } from "./agent/info.js"
import { defaultAgent, getAgent, resolveAgents } from "./agent/resolve.js"
import { createBus } from "./bus/bus.js"
import type { Info as CommandInfo } from "./command/info.js"
import { createCommandRunner } from "./command/run.js"
import { connectRelay, createForwarder } from "./coordination/relay.js"
import { parseInput } from "./error/invalid-input.js"
import { createGenerator } from "./id/identifier.js"
import { createLoop } from "./loop/loop.js"
import { loopSettings } from "./loop/settings.js"
import { createStatusRegistry } from "./loop/status-registry.js"
import { providerFromOptions } from "./provider/from-options.js"
import { createAskServices } from "./runtime/asks.js"
import { createLifecycle } from "./runtime/lifecycle.js"
import { createSessionApi } from "./runtime/session-api.js"
import { createRuntimeTools } from "./runtime/tools.js"
import type { Runtime } from "./runtime/types.js"
import { Options, type RuntimeOptions } from "./runtime-options.js"
import { createMessageOwners } from "./session/message-owners.js"
import { createRevert } from "./session/revert.js"
import { createSessionService } from "./session/service.js"
import { createSummary } from "./session/summary.js"
import { createShell } from "./shell/shell.js"
import { MemoryStorage } from "./storage/memory.js"
import type { Storage } from "./storage/port.js"
import { fenceSessions } from "./storage/session-fence.js"
import type { TaskDeps } from "./task/deps.js"
import { runTask } from "./task/run-task.js"
import { createTodos } from "./todo/todos.js"

export type { CloseOptions } from "./runtime/lifecycle.js"
export type { Runtime } from "./runtime/types.js"
export type { AgentOptions, RuntimeOptions } from "./runtime-options.js"

/** The composition root: everything stateful belongs to the runtime it returns. */
export function createRuntime(options: RuntimeOptions = {}): Runtime {
  const parsed = parseInput("runtime options", Options, options)
  const provider = providerFromOptions(parsed)
  const storage: Storage = parsed.storage ?? new MemoryStorage()
  const bus = createBus(parsed.onListenerError ? { onListenerError: parsed.onListenerError } : {})
  const { assertOpen, assertStorageOpen, close } = createLifecycle()
  const coordinator = parsed.coordinator === false ? undefined : (parsed.coordinator ?? storage.coordinator)
  const base = { storage, bus, ids: createGenerator(), assertOpen }
  const owners = { directory: parsed.directory ?? process.cwd(), messageOwners: createMessageOwners() }
  const sessions = createSessionService({ ...base, ...owners, beforeRead: (id) => loop.repairIfIdle(id) })
  const forwarder =
    coordinator &&
    createForwarder(coordinator, {
      runsHere: (id) => loop.runsHere(id),
      recorded: {
        waiting: (id) => stored.hasRecorded(id),
        actOn: (id) => {
          assertOpen()
          return stored.resumeRecorded(id)
        },
      },
    })
  const forwardElsewhere = forwarder?.forward
  const { askTimeoutMs, nonInteractive, onPermission, onQuestion, approvalScope } = parsed
  const { permission, question, stored } = createAskServices(
    { ...base, askTimeoutMs, nonInteractive, onPermission, onQuestion, approvalScope, forwardElsewhere },
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
    ...base,
    agents,
    session: sessions,
    prompt: (input) => loop.prompt(input, { child: true }),
    rulesFor: async (id, agent) => loop.rulesFor(await sessions.get(id), getAgent(agents, agent)),
  }
  const tools = createRuntimeTools(parsed, { agents, ask: question.ask, todos, task })
  // What the loop writes, which close() can cut off for the sessions whose turns it keeps.
  const fence = fenceSessions(storage)
  const fenced = { ...base, ...owners, storage: fence.storage, assertOpen: assertStorageOpen }
  const status = createStatusRegistry(bus)
  const loop = createLoop({
    ...loopSettings(parsed),
    ...{ bus, permission, provider, agents, tools, coordinator, assertOpen, asks: stored },
    storage: fence.storage,
    session: createSessionService(fenced),
    messageOwners: owners.messageOwners,
    defaultAgent: defaultAgentName,
    snapshot: parsed.snapshot,
    // New work waits for the user's shell command: a run would close its answer as interrupted.
    files: {
      cleanup: (id) => shell.settled(id).then(() => reverts.cleanup(id)),
      summarize: summary.summarize,
    },
    runTask: (args, context) => runTask(task, args, context, { ask: false }),
    status,
  })
  const shell = createShell({
    ...{ sessions, storage, tools, agents, provider, status, ownerOf: owners.messageOwners.ownerOf },
    defaultAgent: defaultAgentName,
    isBusy: (id) => loop.isBusy(id),
    cleanup: reverts.cleanup,
    enterWork: loop.enterWork,
  })
  const relay = coordinator && connectRelay(coordinator, { bus, loop, permission, question })
  const disconnect = () => {
    relay?.()
    forwarder?.close()
  }
  const commandInfos = Object.freeze({ ...(parsed.commands ?? {}) }) as Record<string, CommandInfo>
  const commands = createCommandRunner({
    commands: commandInfos,
    agents,
    defaultAgent: () => defaultAgentName,
    prompt: (input) => loop.prompt(input),
  })
  const { on, onAny, stream, listenerCount } = bus
  return {
    ...{ provider, tools, agents, commands: commandInfos, directory: owners.directory },
    session: createSessionApi({ sessions, loop, reverts, summary, todos, commands, shell, coordinator }),
    permission: { ask: permission.ask, list: permission.list, reply: permission.reply },
    question: { ask: question.ask, list: question.list, reply: question.reply, reject: question.reject },
    events: { on, onAny, stream, listenerCount },
    close: (closeOptions) =>
      close(() => ({ permission, question, fence, loop, disconnect, bus, storage }), closeOptions),
  }
}
