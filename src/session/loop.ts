import type { ModelMessage } from "ai"
import type { Info as AgentInfo } from "../agent/info.js"
import { MAX_STEPS } from "../agent/prompts/index.js"
import { getAgent } from "../agent/resolve.js"
import { systemPrompt } from "../agent/system.js"
import { parseInput } from "../error/invalid-input.js"
import { NotFoundError } from "../error/not-found.js"
import { AbortedError, ContextOverflowError } from "../message/errors.js"
import type { Assistant, User, WithParts } from "../message/info.js"
import type { Part, ToolPart } from "../message/part.js"
import { toModelMessages } from "../message/to-model-messages.js"
import { merge } from "../permission/rules.js"
import { create as createProcessor, type ProcessResult } from "../processor/processor.js"
import type { Model } from "../provider/provider.js"
import { generateTitle } from "./generate-title.js"
import type { LoopDeps } from "./loop-deps.js"
import { MissingProviderError, NoUserMessageError } from "./loop-errors.js"
import { PromptInput, type PromptInput as PromptInputType, type PromptPart } from "./prompt-input.js"
import { retryDelay, retryMessage, sleep } from "./retry.js"
import { isDefaultTitle } from "./title.js"

type Run = { abort: AbortController; incoming: WithParts[]; done: Promise<WithParts> }

/**
 * The prompt loop: stores user messages, and runs one loop per session that calls the model
 * step after step while it asks for tools. Prompts to a busy session join its loop.
 */
export function createLoop(deps: LoopDeps) {
  const runs = new Map<string, Run>()
  const titles = new Map<string, Promise<void>>()
  const titleAbort = new AbortController()

  function provider() {
    if (!deps.provider)
      throw new MissingProviderError({ message: "runtime.session.prompt needs createRuntime({ provider })" })
    return deps.provider
  }

  async function prompt(input: PromptInputType): Promise<WithParts> {
    deps.assertOpen()
    const parsed = parseInput("session.prompt input", PromptInput, input)
    const session = await deps.session.get(parsed.sessionID)
    const agentPart = parsed.parts.findLast((part) => part.type === "agent")
    const agent = agentOf(parsed.agent ?? agentPart?.name ?? deps.defaultAgent)
    const model = parsed.model ?? agent.model ?? refOf(provider().defaultModel())
    provider().getModel(model)

    const id = parsed.messageID ?? (await deps.session.newMessageID(session.id))
    const info: User = {
      id,
      sessionID: session.id,
      role: "user",
      time: { created: Date.now() },
      agent: agent.name,
      model,
      ...(parsed.system === undefined ? {} : { system: parsed.system }),
      ...(parsed.tools === undefined ? {} : { tools: parsed.tools }),
      ...(parsed.variant === undefined ? {} : { variant: parsed.variant }),
    }
    const message: WithParts = { info, parts: parsed.parts.map((part) => toPart(part, session.id, id)) }
    await deps.hooks["chat.message"]?.({ sessionID: session.id, agent: agent.name }, message)
    await deps.session.saveMessage(message)
    await deps.session.touch(session.id)
    if (!session.parentID && isDefaultTitle(session.title)) startTitle(session.id, message)
    if (parsed.noReply) return message

    const running = runs.get(session.id)
    if (running) {
      running.incoming.push(message)
      return running.done
    }
    return start(session.id)
  }

  function toPart(part: PromptPart, sessionID: string, messageID: string): Part {
    const base = { id: deps.session.newPartID(messageID), sessionID, messageID }
    if (part.type === "text") return { ...base, ...part }
    return { ...base, ...part } as Part
  }

  const agentOf = (name: string) => getAgent(deps.agents, name)

  async function loop(sessionID: string): Promise<WithParts> {
    deps.assertOpen()
    const session = await deps.session.get(sessionID)
    return runs.get(session.id)?.done ?? start(session.id)
  }

  function start(sessionID: string): Promise<WithParts> {
    const run = { abort: new AbortController(), incoming: [] } as unknown as Run
    runs.set(sessionID, run)
    deps.status.set(sessionID, { type: "busy" })
    run.done = execute(sessionID, run).finally(() => {
      runs.delete(sessionID)
      deps.status.set(sessionID, { type: "idle" })
    })
    return run.done
  }

  async function execute(sessionID: string, run: Run): Promise<WithParts> {
    const history = await deps.storage.listMessages(sessionID)
    let steps = 0
    while (true) {
      for (const message of run.incoming.splice(0))
        if (!history.some((known) => known.info.id === message.info.id)) history.push(message)
      const user = history.findLast((message) => message.info.role === "user")
      if (!user)
        throw new NoUserMessageError({ message: `Session ${sessionID} has no user message to answer` })
      const last = history.at(-1)!
      if (last.info.role === "assistant" && isFinal(last, user)) return last
      if (run.abort.signal.aborted && last.info.role === "assistant") return last

      steps++
      const userInfo = user.info as User
      const agent = agentOf(userInfo.agent)
      const finalStep = agent.steps !== undefined && steps >= agent.steps
      const answer = await step({ sessionID, run, history, user: userInfo, agent, finalStep })
      history.push(answer.message)
      if (answer.outcome !== "continue" || finalStep || run.abort.signal.aborted) return answer.message
    }
  }

  async function step(input: {
    sessionID: string
    run: Run
    history: WithParts[]
    user: User
    agent: AgentInfo
    finalStep: boolean
  }): Promise<{ message: WithParts; outcome: ProcessResult }> {
    const { sessionID, run, history, user, agent, finalStep } = input
    const model = provider().getModel(user.model)
    const session = await deps.session.get(sessionID)
    const ruleset = merge(agent.permission, deps.permissionRules, session.permission ?? [])
    const tools = finalStep ? [] : deps.tools.enabled({ ruleset, switches: user.tools })
    const messages: ModelMessage[] = await toModelMessages(history, model.info)
    if (finalStep) messages.push({ role: "user", content: MAX_STEPS })
    const blocks = systemPrompt({
      agent,
      environment: {
        directory: session.directory,
        git: deps.git,
        platform: process.platform,
        date: new Date(),
      },
      instructions: deps.instructions,
      ...(user.system === undefined ? {} : { user: user.system }),
    })
    const about = { sessionID, agent, model: model.info }
    const system = { system: blocks }
    await deps.hooks["chat.system"]?.(about, system)
    const params = {
      ...(agent.temperature === undefined ? {} : { temperature: agent.temperature }),
      ...(agent.topP === undefined ? {} : { topP: agent.topP }),
    }
    await deps.hooks["chat.params"]?.(about, params)
    const turn = turnToolParts(history, user.id)

    let retried: Assistant["error"]
    for (let attempt = 0; ; attempt++) {
      const assistant = await newAssistant(sessionID, user, agent, model, session.directory)
      await deps.session.updateMessage(assistant)
      if (retried?.name === "APIError")
        await deps.session.updatePart({
          id: deps.session.newPartID(assistant.id),
          sessionID,
          messageID: assistant.id,
          type: "retry",
          attempt,
          error: retried,
          time: { created: Date.now() },
        })
      const processor = createProcessor({
        runtime: { session: deps.session, permission: deps.permission },
        assistantMessage: assistant,
        model,
        abort: run.abort.signal,
        turn,
        hooks: deps.hooks,
        ...(deps.snapshot ? { snapshot: deps.snapshot } : {}),
      })
      const outcome = await processor.process({
        system: system.system.join("\n\n"),
        messages,
        tools,
        ruleset,
        ...params,
      })
      const result = processor.message()
      const error = result.error
      if (outcome === "compact") return { message: await failed(result, overflowError()), outcome: "stop" }
      if (!error || run.abort.signal.aborted)
        return { message: await stored(sessionID, assistant.id), outcome }

      const why = retryMessage(error)
      if (why === undefined || attempt >= deps.retry.maxAttempts) {
        deps.bus.publish("session.error", { sessionID, error })
        return { message: await stored(sessionID, assistant.id), outcome }
      }
      const wait = retryDelay(attempt + 1, error, deps.retry)
      deps.status.set(sessionID, {
        type: "retry",
        attempt: attempt + 1,
        message: why,
        next: Date.now() + wait,
      })
      try {
        await sleep(wait, run.abort.signal)
      } catch {
        return {
          message: await failed(
            result,
            new AbortedError({ message: "The operation was aborted." }).toObject(),
          ),
          outcome: "stop",
        }
      }
      // The failed attempt's partial output is dropped so the retry does not repeat it.
      await deps.session.removeMessage({ sessionID, messageID: assistant.id })
      retried = error
      deps.status.set(sessionID, { type: "busy" })
    }
  }

  async function failed(message: Assistant, error: Assistant["error"]): Promise<WithParts> {
    await deps.session.updateMessage({ ...message, error })
    if (error) deps.bus.publish("session.error", { sessionID: message.sessionID, error })
    return stored(message.sessionID, message.id)
  }

  async function stored(sessionID: string, messageID: string): Promise<WithParts> {
    const message = await deps.storage.getMessage(sessionID, messageID)
    if (!message) throw NotFoundError.of("Message", messageID)
    return message
  }

  async function newAssistant(
    sessionID: string,
    user: User,
    agent: AgentInfo,
    model: Model,
    directory: string,
  ): Promise<Assistant> {
    return {
      id: await deps.session.newMessageID(sessionID),
      sessionID,
      role: "assistant",
      time: { created: Date.now() },
      parentID: user.id,
      agent: agent.name,
      providerID: model.info.providerID,
      modelID: model.info.id,
      path: { cwd: directory, root: directory },
      cost: 0,
      tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
    }
  }

  function startTitle(sessionID: string, message: WithParts) {
    const text = message.parts
      .flatMap((part) => (part.type === "text" && !part.synthetic && !part.ignored ? [part.text] : []))
      .join("\n")
    const agent = deps.agents.title
    if (titles.has(sessionID) || !text.trim() || !agent || !deps.provider) return
    const model = deps.provider.smallModel()
    const task = generateTitle({ model: model.language, agent, text, abort: titleAbort.signal })
      .then(async (title) => {
        const current = await deps.session.get(sessionID)
        if (title && isDefaultTitle(current.title)) await deps.session.update(sessionID, { title })
      })
      .catch(() => undefined)
      .finally(() => titles.delete(sessionID))
    titles.set(sessionID, task)
  }

  return {
    prompt,
    loop,
    cancel(sessionID: string): void {
      runs.get(sessionID)?.abort.abort()
    },
    status: deps.status.get,
    /** Cancels every loop and title, and waits for them to settle. */
    async close(): Promise<void> {
      for (const run of runs.values()) run.abort.abort()
      titleAbort.abort()
      await Promise.allSettled([...[...runs.values()].map((run) => run.done), ...titles.values()])
    },
  }
}

function isFinal(last: WithParts, user: WithParts): boolean {
  const info = last.info as Assistant
  if (info.id < user.info.id) return false
  if (info.error) return true
  const unfinished = last.parts.some(
    (part) => part.type === "tool" && (part.state.status === "pending" || part.state.status === "running"),
  )
  return info.finish !== undefined && info.finish !== "tool-calls" && info.finish !== "unknown" && !unfinished
}

/** Tool parts of the assistant messages answering the latest user message, oldest first. */
function turnToolParts(history: readonly WithParts[], userID: string): ToolPart[] {
  return history
    .filter((message) => message.info.role === "assistant" && message.info.id > userID)
    .flatMap((message) => message.parts.filter((part): part is ToolPart => part.type === "tool"))
}

function refOf(model: Model) {
  return { providerID: model.info.providerID, modelID: model.info.id }
}

function overflowError(): Assistant["error"] {
  return new ContextOverflowError({
    message:
      "The conversation no longer fits the model's context window, and compaction is not available yet.",
  }).toObject()
}
