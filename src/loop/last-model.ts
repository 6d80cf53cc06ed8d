import { compactionPart } from "../message/filter-compacted.js"
import type { WithParts } from "../message/info.js"
import type { ModelRef } from "../message/part.js"
import { UnknownModelError } from "../provider/errors.js"
import type { Provider } from "../provider/provider.js"
import type { SessionInfo } from "../schema/session.js"
import type { Storage } from "../storage/port.js"

/** Enough for the steps of a usual turn; a longer one reads the whole session once. */
const PAGE = 50

/**
 * The model of the session's latest user message, so a prompt that names none goes on with
 * what the session used (OpenCode's rule). Compaction requests carry the summary's model, not the
 * conversation's, and are passed over. A model the provider no longer knows is no choice at all.
 */
export async function lastModel(
  storage: Storage,
  provider: Provider,
  sessionID: string,
): Promise<ModelRef | undefined> {
  const found = (await fromLatest(storage, sessionID)) ?? (await scan(storage, sessionID))
  return found && known(provider, found)
}

/**
 * The model a session goes on with when neither the prompt nor its agent names one (OpenCode's
 * order): the one it last used, else the one it was created with, else the provider's default.
 * Prompts and `session.shell` choose by this one rule.
 */
export async function sessionModel(
  storage: Storage,
  provider: Provider,
  session: SessionInfo,
): Promise<ModelRef> {
  const chosen = (await lastModel(storage, provider, session.id)) ?? session.model
  if (chosen) return chosen
  const { info } = provider.defaultModel()
  return { providerID: info.providerID, modelID: info.id }
}

/** The usual case in two small reads: the newest message, and the request it answers. */
async function fromLatest(storage: Storage, sessionID: string): Promise<ModelRef | undefined> {
  const [latest] = await storage.listMessages(sessionID, { limit: 1 })
  if (latest?.info.role === "assistant" && !latest.info.summary) {
    const request = await storage.getMessage(sessionID, latest.info.parentID)
    return request && modelOf(request)
  }
  return latest && modelOf(latest)
}

async function scan(storage: Storage, sessionID: string): Promise<ModelRef | undefined> {
  for (const limit of [PAGE, undefined]) {
    const messages = await storage.listMessages(sessionID, limit === undefined ? undefined : { limit })
    const user = messages.findLast((message) => modelOf(message) !== undefined)
    if (user) return modelOf(user)
    if (limit === undefined || messages.length < limit) return undefined
  }
  return undefined
}

function modelOf(message: WithParts): ModelRef | undefined {
  return message.info.role === "user" && !compactionPart(message) ? message.info.model : undefined
}

function known(provider: Provider, model: ModelRef): ModelRef | undefined {
  try {
    provider.getModel(model)
    return model
  } catch (error) {
    if (UnknownModelError.isInstance(error)) return undefined
    throw error
  }
}
