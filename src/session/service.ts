import { Decimal } from "decimal.js"
import { parseInput } from "../error/invalid-input.js"
import { NotFoundError } from "../error/not-found.js"
import { parseID } from "../id/parse-id.js"
import type { WithParts } from "../message/info.js"
import type { Tokens } from "../message/part.js"
import type { Info } from "../schema/session.js"
import type { StorageWrite } from "../storage/port.js"
import { VERSION } from "../version.js"
import type { SessionDeps } from "./deps.js"
import { copyMessages } from "./fork.js"
import {
  CreateInput,
  type CreateInput as CreateInputType,
  ForkInput,
  type ForkInput as ForkInputType,
  ListInput,
  type ListInput as ListInputType,
  MessagesInput,
  type MessagesInput as MessagesInputType,
  UpdateInput,
  type UpdateInput as UpdateInputType,
} from "./input.js"
import { createSlug } from "./slug.js"
import { defaultTitle, forkTitle } from "./title.js"
import { addTokens, type TreeUsage, treeUsage } from "./tree-usage.js"
import { sessionValueKeys } from "./values.js"
import { createMessageWriters } from "./writers.js"

/**
 * The stored side of `runtime.session`: create, get, list, update, remove and fork sessions, read
 * their messages and usage (the runtime adds prompt, cancel, revert and diff). Each method throws
 * `InvalidInputError` on a malformed input and `NotFoundError` on an unknown session or message.
 */
export type SessionService = ReturnType<typeof createSessionService>

export function createSessionService(deps: SessionDeps) {
  const get = (sessionID: string): Promise<Info> => getSession(deps, sessionID)
  const create = (input: CreateInputType = {}): Promise<Info> => createSession(deps, input)
  const list = async (input: ListInputType = {}): Promise<Info[]> => {
    deps.assertOpen()
    return deps.storage.listSessions(parseInput("session.list input", ListInput, input))
  }
  const children = async (sessionID: string): Promise<Info[]> => {
    const parent = await get(sessionID)
    return deps.storage.listSessions({ parentID: parent.id })
  }
  const update = (sessionID: string, patch: UpdateInputType): Promise<Info> =>
    updateSession(deps, sessionID, patch)
  const touch = async (sessionID: string): Promise<Info> => {
    const current = await get(sessionID)
    return saveSession(deps, { ...current, time: { ...current.time, updated: Date.now() } })
  }
  const remove = (sessionID: string): Promise<void> => removeSession(deps, sessionID)
  const fork = (input: ForkInputType): Promise<Info> => forkSession(deps, input)
  const messages = (sessionID: string, input: MessagesInputType = {}): Promise<WithParts[]> =>
    readMessages(deps, sessionID, input)
  /** One message with its parts, read alone (not the session's whole history). */
  const message = (sessionID: string, messageID: string): Promise<WithParts> =>
    readMessage(deps, sessionID, messageID)
  /** Cost and tokens of the session, and with its sub-agents' sessions. */
  const usage = async (sessionID: string): Promise<TreeUsage> => treeUsage(deps.storage, await get(sessionID))
  return {
    create,
    get,
    usage,
    list,
    children,
    update,
    touch,
    remove,
    fork,
    messages,
    message,
    ...createMessageWriters(deps),
  }
}

async function getSession(deps: SessionDeps, sessionID: string): Promise<Info> {
  deps.assertOpen()
  const id = parseID("sessionID", "session", sessionID)
  const info = await deps.storage.getSession(id)
  if (!info) throw NotFoundError.of("Session", id)
  return info
}

async function createSession(deps: SessionDeps, input: CreateInputType): Promise<Info> {
  deps.assertOpen()
  const { parentID, title, permission, agent, model, metadata } = parseInput(
    "session.create input",
    CreateInput,
    input,
  )
  if (parentID !== undefined) await getSession(deps, parentID)
  const now = Date.now()
  const info: Info = {
    id: deps.ids.descending("session"),
    slug: createSlug(),
    directory: deps.directory,
    ...(parentID === undefined ? {} : { parentID }),
    title: title ?? defaultTitle(parentID !== undefined, now),
    version: VERSION,
    time: { created: now, updated: now },
    ...(permission === undefined ? {} : { permission }),
    ...(agent === undefined ? {} : { agent }),
    ...(model === undefined ? {} : { model }),
    ...(metadata === undefined ? {} : { metadata }),
    cost: 0,
    tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
  }
  await deps.storage.write([{ type: "session.put", info }])
  deps.bus.publish("session.created", { sessionID: info.id, info })
  return info
}

/** Writes a changed session and publishes it; the one way session info changes. */
async function saveSession(deps: SessionDeps, info: Info): Promise<Info> {
  await deps.storage.write([{ type: "session.put", info }])
  deps.bus.publish("session.updated", { sessionID: info.id, info })
  return info
}

async function updateSession(deps: SessionDeps, sessionID: string, patch: UpdateInputType): Promise<Info> {
  const { title, permission, archived, metadata } = parseInput("session.update patch", UpdateInput, patch)
  const current = await getSession(deps, sessionID)
  const now = Date.now()
  const time = { ...current.time, updated: now }
  if (archived === true) time.archived = now
  else if (typeof archived === "number") time.archived = archived
  if (archived === false) delete time.archived
  return saveSession(deps, {
    ...current,
    ...(title === undefined ? {} : { title }),
    ...(permission === undefined ? {} : { permission }),
    ...(metadata === undefined ? {} : { metadata }),
    time,
  })
}

async function removeSession(deps: SessionDeps, sessionID: string): Promise<void> {
  const root = await getSession(deps, sessionID)
  // Keyed by ID, so that parent links that loop (stored before cycles were refused) end the walk.
  const removed = new Map([[root.id, root]])
  for (const id of removed.keys())
    for (const child of await deps.storage.listSessions({ parentID: id }))
      if (!removed.has(child.id)) removed.set(child.id, child)
  await deps.storage.write([
    { type: "session.remove", sessionID: root.id },
    ...[...removed.keys()].flatMap((id) =>
      sessionValueKeys(id).map((key) => ({ type: "value.remove" as const, key })),
    ),
  ])
  for (const info of [...removed.values()].reverse())
    deps.bus.publish("session.deleted", { sessionID: info.id, info })
}

async function readMessages(
  deps: SessionDeps,
  sessionID: string,
  input: MessagesInputType,
): Promise<WithParts[]> {
  const query = parseInput("session.messages input", MessagesInput, input)
  const id = parseID("sessionID", "session", sessionID)
  deps.assertOpen()
  await deps.beforeRead?.(id)
  return deps.storage.listMessages(id, query)
}

async function readMessage(deps: SessionDeps, sessionID: string, messageID: string): Promise<WithParts> {
  const id = parseID("sessionID", "session", sessionID)
  const wanted = parseID("messageID", "message", messageID)
  deps.assertOpen()
  await deps.beforeRead?.(id)
  const found = await deps.storage.getMessage(id, wanted)
  if (!found) throw NotFoundError.of("Message", wanted)
  return found
}

async function forkSession(deps: SessionDeps, input: ForkInputType): Promise<Info> {
  const { sessionID, messageID } = parseInput("session.fork input", ForkInput, input)
  const original = await getSession(deps, sessionID)
  const history = await deps.storage.listMessages(original.id)
  if (messageID !== undefined && !history.some((message) => message.info.id === messageID))
    throw NotFoundError.of("Message", messageID)
  const kept = messageID === undefined ? history : history.filter((message) => message.info.id < messageID)
  const titles = (await deps.storage.listSessions()).map((session) => session.title)
  const now = Date.now()
  const info: Info = {
    id: deps.ids.descending("session"),
    slug: createSlug(),
    directory: original.directory,
    title: forkTitle(original.title, titles),
    version: VERSION,
    time: { created: now, updated: now },
    ...(original.permission === undefined ? {} : { permission: original.permission }),
    ...(original.agent === undefined ? {} : { agent: original.agent }),
    ...(original.model === undefined ? {} : { model: original.model }),
    ...(original.metadata === undefined ? {} : { metadata: original.metadata }),
    ...totalsOf(kept),
  }
  const copied = copyMessages(kept, info.id, deps.ids)
  const writes: StorageWrite[] = [{ type: "session.put", info }]
  for (const message of copied) {
    writes.push({ type: "message.put", info: message.info })
    for (const part of message.parts) writes.push({ type: "part.put", part })
  }
  await deps.storage.write(writes)
  deps.bus.publish("session.created", { sessionID: info.id, info })
  for (const message of copied) {
    deps.bus.publish("message.updated", { sessionID: info.id, info: message.info })
    for (const part of message.parts) deps.bus.publish("message.part.updated", { sessionID: info.id, part })
  }
  return info
}

/** A fork's cost and tokens are those of the assistant messages it copied. */
function totalsOf(messages: readonly WithParts[]): Pick<Info, "cost" | "costUnknown" | "tokens"> {
  let cost = new Decimal(0)
  let tokens: Tokens = { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } }
  let costUnknown = false
  for (const { info } of messages) {
    if (info.role !== "assistant") continue
    cost = cost.plus(info.cost)
    tokens = addTokens(tokens, info.tokens)
    costUnknown ||= info.costUnknown === true
  }
  return { cost: cost.toNumber(), ...(costUnknown ? { costUnknown: true as const } : {}), tokens }
}
