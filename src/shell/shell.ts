import { z } from "zod"
import type { AgentInfo } from "../agent/info.js"
import { getAgent } from "../agent/resolve.js"
import { parseInput } from "../error/invalid-input.js"
import { schema as id } from "../id/identifier.js"
import { MissingProviderError } from "../loop/context.js"
import { sessionModel } from "../loop/last-model.js"
import type { StatusRegistry } from "../loop/loop-deps.js"
import { assertNewMessageID } from "../loop/prompt-checks.js"
import type { WithParts } from "../message/info.js"
import { ModelRef } from "../message/part.js"
import type { Provider } from "../provider/provider.js"
import type { SessionInfo } from "../schema/session.js"
import { BusyError } from "../session/errors.js"
import type { SessionService } from "../session/service.js"
import type { Storage } from "../storage/port.js"
import type { ToolRegistry } from "../tool/registry.js"
import type { ToolInfo } from "../tool/tool.js"
import { ShellUnavailableError } from "./errors.js"
import { shellAnswer, userMessage } from "./messages.js"
import { runBash } from "./run-bash.js"

/** What `session.shell` takes: the command line to run in a session, as the user. */
export const ShellInput = z.strictObject({
  sessionID: id("session"),
  /** The command line, run with the runtime's `bash` tool. */
  command: z.string().min(1),
  /** The agent the messages are recorded under; default the runtime's default agent. */
  agent: z.string().min(1).optional(),
  /** The model the messages name; default the agent's, else the one the session last used, else the provider's. */
  model: ModelRef.optional(),
  /** The user message's ID, as in `session.prompt`. */
  messageID: id("message").optional(),
})
export type ShellInput = z.input<typeof ShellInput>

/** What `session.shell` needs from the runtime. */
export type ShellDeps = {
  sessions: Pick<
    SessionService,
    "get" | "newMessageID" | "newPartID" | "saveMessage" | "updatePart" | "touch"
  >
  storage: Storage
  tools: Pick<ToolRegistry, "get">
  agents: Record<string, AgentInfo>
  defaultAgent: string
  provider: Provider | undefined
  status: Pick<StatusRegistry, "set">
  /** Whether the session runs a turn or waits for an answer: no command starts then. */
  isBusy(sessionID: string): Promise<boolean>
  /** Makes a revert final before new messages are stored, as a prompt does. */
  cleanup(sessionID: string): Promise<void>
  /**
   * Work on the session outside a run: its signal aborts on cancel, on remove and on close; reads
   * of the session do not take its running call for a stopped process's; it writes once `ready`.
   */
  enterWork(sessionID: string): { signal: AbortSignal; ready: Promise<void>; end(): void }
  /** Which session a recently stored message belongs to, to check a caller's messageID. */
  ownerOf?: ((messageID: string) => string | undefined) | undefined
}

/**
 * `session.shell`: runs a command line the user typed with the runtime's `bash` tool, recorded in
 * the session as OpenCode records it: a user message saying the user ran a tool, and an answer
 * holding the bash call, running while the command runs. No model is called and nothing is asked.
 * The session is busy meanwhile: a prompt, loop or compaction waits for the command to end
 * (`settled`, which the runtime has them await), and revert refuses (`isRunning`).
 */
export function createShell(deps: ShellDeps) {
  const self: ShellState = { deps, running: new Map() }
  return {
    shell: (raw: ShellInput): Promise<WithParts> => shell(self, raw),
    /** Resolves once no command of the session runs (at once when none does). */
    settled: (sessionID: string): Promise<void> => self.running.get(sessionID) ?? Promise.resolve(),
    /** Whether a command of the session runs now. */
    isRunning: (sessionID: string): boolean => self.running.has(sessionID),
  }
}

/** The runtime's shell: its deps, and the commands running now by session, settled when each ends. */
type ShellState = { deps: ShellDeps; running: Map<string, Promise<void>> }

async function shell(self: ShellState, raw: ShellInput): Promise<WithParts> {
  const { deps } = self
  const input = parseInput("session.shell input", ShellInput, raw)
  const bash = deps.tools.get("bash")
  if (!bash) throw ShellUnavailableError.of()
  const session = await deps.sessions.get(input.sessionID)
  const agent = getAgent(deps.agents, input.agent ?? session.agent ?? deps.defaultAgent)
  const model = await modelFor(deps, input.model ?? agent.model, session)
  if (input.messageID !== undefined)
    await assertNewMessageID(deps.storage, session.id, input.messageID, deps.ownerOf)
  const busy = await deps.isBusy(session.id)
  // Checked after the await too: another command may have started meanwhile.
  if (busy || self.running.has(session.id)) throw BusyError.of(session.id)
  const work = enter(self, session.id)
  try {
    const { command, messageID } = input
    return await record(deps, bash, session, {
      agent: agent.name,
      model,
      command,
      messageID,
      signal: work.signal,
      ready: work.ready,
    })
  } finally {
    work.end()
  }
}

async function record(
  deps: ShellDeps,
  bash: ToolInfo,
  session: SessionInfo,
  at: {
    agent: string
    model: ModelRef
    command: string
    messageID: string | undefined
    signal: AbortSignal
    ready: Promise<void>
  },
): Promise<WithParts> {
  const { sessions } = deps
  const { agent, model, command } = at
  await at.ready
  await deps.cleanup(session.id)
  const ids = { sessionID: session.id, newPartID: sessions.newPartID }
  const userID = at.messageID ?? (await sessions.newMessageID(session.id))
  const user = await sessions.saveMessage(userMessage({ ...ids, messageID: userID, agent, model }))
  await sessions.touch(session.id)
  const messageID = await sessions.newMessageID(session.id)
  const { directory } = session
  const answer = shellAnswer({
    ...ids,
    messageID,
    parentID: user.info.id,
    agent,
    model,
    directory,
    command,
  })
  await sessions.saveMessage({ info: answer.info, parts: [answer.part] })
  const part = await runBash(bash, {
    part: answer.part,
    agent,
    directory,
    signal: at.signal,
    write: sessions.updatePart,
    newPartID: () => sessions.newPartID(messageID),
  })
  // The part and the end time in one write: a process that stops first leaves the call
  // running, which the next read of the session closes as interrupted.
  const completed = Date.now()
  return sessions.saveMessage({
    info: { ...answer.info, time: { created: answer.info.time.created, completed } },
    parts: [part],
  })
}

/** OpenCode's order: the caller's model or the agent's, the one the session last used, the default. */
async function modelFor(
  deps: ShellDeps,
  given: ModelRef | undefined,
  session: SessionInfo,
): Promise<ModelRef> {
  const { provider } = deps
  if (!provider) {
    if (given) return given
    throw new MissingProviderError({
      message: "runtime.session.shell needs a model: pass `model`, or createRuntime({ provider })",
    })
  }
  const model = given ?? (await sessionModel(deps.storage, provider, session))
  provider.getModel(model)
  return model
}

/** Marks the session busy until `end`; cancel, remove and close abort `signal`. */
function enter(self: ShellState, sessionID: string) {
  const { deps, running } = self
  const work = deps.enterWork(sessionID)
  let settle!: () => void
  running.set(
    sessionID,
    new Promise<void>((resolve) => {
      settle = resolve
    }),
  )
  deps.status.set(sessionID, { type: "busy" })
  return {
    signal: work.signal,
    ready: work.ready,
    end() {
      running.delete(sessionID)
      work.end()
      // Idle before the waiting prompts go on, so that the status of their run follows.
      deps.status.set(sessionID, { type: "idle" })
      settle()
    },
  }
}

/** `runtime.session.shell` and what the rest of the runtime asks of it. */
export type Shell = ReturnType<typeof createShell>
