import { Decimal } from "decimal.js"
import { parseInput } from "../error/invalid-input.js"
import { NotFoundError } from "../error/not-found.js"
import { parseID } from "../id/parse-id.js"
import type { Info as MessageInfo, WithParts } from "../message/info.js"
import type { Part, Tokens } from "../message/part.js"
import type { Info } from "../schema/session.js"
import { markBuilt, writeMarked } from "../storage/built-row.js"
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
  recordedUsage,
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
  const { storage, bus, ids } = deps

  async function get(sessionID: string): Promise<Info> {
    deps.assertOpen()
    const id = parseID("sessionID", "session", sessionID)
    const info = await storage.getSession(id)
    if (!info) throw NotFoundError.of("Session", id)
    return info
  }

  async function create(input: CreateInputType = {}): Promise<Info> {
    deps.assertOpen()
    const { parentID, title, permission, agent, model, metadata } = parseInput(
      "session.create input",
      CreateInput,
      input,
    )
    if (parentID !== undefined) await get(parentID)
    const now = Date.now()
    const info: Info = {
      id: ids.descending("session"),
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
    await storage.write([{ type: "session.put", info }])
    bus.publish("session.created", { sessionID: info.id, info })
    return info
  }

  async function list(input: ListInputType = {}): Promise<Info[]> {
    deps.assertOpen()
    return storage.listSessions(parseInput("session.list input", ListInput, input))
  }

  async function children(sessionID: string): Promise<Info[]> {
    const parent = await get(sessionID)
    return storage.listSessions({ parentID: parent.id })
  }

  /** Writes a changed session and publishes it; the one way session info changes. */
  async function save(info: Info): Promise<Info> {
    await storage.write([{ type: "session.put", info }])
    bus.publish("session.updated", { sessionID: info.id, info })
    return info
  }

  async function update(sessionID: string, patch: UpdateInputType): Promise<Info> {
    const { title, permission, archived, metadata } = parseInput("session.update patch", UpdateInput, patch)
    const current = await get(sessionID)
    const now = Date.now()
    const time = { ...current.time, updated: now }
    if (archived === true) time.archived = now
    else if (typeof archived === "number") time.archived = archived
    if (archived === false) delete time.archived
    return save({
      ...current,
      ...(title === undefined ? {} : { title }),
      ...(permission === undefined ? {} : { permission }),
      ...(metadata === undefined ? {} : { metadata }),
      time,
    })
  }

  async function touch(sessionID: string): Promise<Info> {
    const current = await get(sessionID)
    return save({ ...current, time: { ...current.time, updated: Date.now() } })
  }

  /**
   * Adds one step's cost and tokens to the session's totals. `message`, the assistant message
   * that now includes the same usage, and `parts` (the step's closing parts) are written in the
   * same atomic write: a crash between two writes would leave the session's totals below the sum
   * of its messages for good, and one write per step end is cheaper than three.
   */
  async function recordUsage(
    sessionID: string,
    usage: Pick<Info, "cost" | "costUnknown" | "tokens">,
    message?: MessageInfo,
    parts: readonly Part[] = [],
  ): Promise<Info> {
    const added = recordedUsage(usage)
    const current = await get(sessionID)
    const info: Info = {
      ...current,
      cost: new Decimal(current.cost).plus(added.cost).toNumber(),
      ...(current.costUnknown || added.costUnknown ? { costUnknown: true as const } : {}),
      tokens: addTokens(current.tokens, added.tokens),
      time: { ...current.time, updated: Date.now() },
    }
    if (!message && parts.length === 0) return save(info)
    // The totals are built here from a stored session and a checked usage; the message and
    // parts are the caller's, marked when the processor built them.
    markBuilt(info)
    await writeMarked([info, ...(message ? [message] : []), ...parts], () =>
      storage.write([
        ...(message ? [{ type: "message.put" as const, info: message }] : []),
        ...parts.map((part) => ({ type: "part.put" as const, part })),
        { type: "session.put", info },
      ]),
    )
    if (message) bus.publish("message.updated", { sessionID: message.sessionID, info: message })
    for (const part of parts) bus.publish("message.part.updated", { sessionID: part.sessionID, part })
    bus.publish("session.updated", { sessionID: info.id, info })
    return info
  }

  async function remove(sessionID: string): Promise<void> {
    const root = await get(sessionID)
    // Keyed by ID, so that parent links that loop (stored before cycles were refused) end the walk.
    const removed = new Map([[root.id, root]])
    for (const id of removed.keys())
      for (const child of await storage.listSessions({ parentID: id }))
        if (!removed.has(child.id)) removed.set(child.id, child)
    await storage.write([
      { type: "session.remove", sessionID: root.id },
      ...[...removed.keys()].flatMap((id) =>
        sessionValueKeys(id).map((key) => ({ type: "value.remove" as const, key })),
      ),
    ])
    for (const info of [...removed.values()].reverse())
      bus.publish("session.deleted", { sessionID: info.id, info })
  }

  async function messages(sessionID: string, input: MessagesInputType = {}): Promise<WithParts[]> {
    const query = parseInput("session.messages input", MessagesInput, input)
    const id = parseID("sessionID", "session", sessionID)
    deps.assertOpen()
    await deps.beforeRead?.(id)
    return storage.listMessages(id, query)
  }

  /** One message with its parts, read alone (not the session's whole history). */
  async function message(sessionID: string, messageID: string): Promise<WithParts> {
    const id = parseID("sessionID", "session", sessionID)
    const wanted = parseID("messageID", "message", messageID)
    deps.assertOpen()
    await deps.beforeRead?.(id)
    const found = await storage.getMessage(id, wanted)
    if (!found) throw NotFoundError.of("Message", wanted)
    return found
  }

  async function fork(input: ForkInputType): Promise<Info> {
    const { sessionID, messageID } = parseInput("session.fork input", ForkInput, input)
    const original = await get(sessionID)
    const history = await storage.listMessages(original.id)
    if (messageID !== undefined && !history.some((message) => message.info.id === messageID))
      throw NotFoundError.of("Message", messageID)
    const kept = messageID === undefined ? history : history.filter((message) => message.info.id < messageID)
    const titles = (await storage.listSessions()).map((session) => session.title)
    const now = Date.now()
    const info: Info = {
      id: ids.descending("session"),
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
    const copied = copyMessages(kept, info.id, ids)
    const writes: StorageWrite[] = [{ type: "session.put", info }]
    for (const message of copied) {
      writes.push({ type: "message.put", info: message.info })
      for (const part of message.parts) writes.push({ type: "part.put", part })
    }
    await storage.write(writes)
    bus.publish("session.created", { sessionID: info.id, info })
    for (const message of copied) {
      bus.publish("message.updated", { sessionID: info.id, info: message.info })
      for (const part of message.parts) bus.publish("message.part.updated", { sessionID: info.id, part })
    }
    return info
  }

  /** Cost and tokens of the session, and with its sub-agents' sessions. */
  async function usage(sessionID: string): Promise<TreeUsage> {
    return treeUsage(storage, await get(sessionID))
  }

  return {
    create,
    get,
    usage,
    list,
    children,
    update,
    touch,
    recordUsage,
    remove,
    fork,
    messages,
    message,
    ...createMessageWriters(deps),
  }
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
