import { Decimal } from "decimal.js"
import { parseInput } from "../error/invalid-input.js"
import { isNamedError } from "../error/named-error.js"
import { NotFoundError } from "../error/not-found.js"
import { RuntimeClosedError } from "../error/runtime-closed.js"
import { isID } from "../id/identifier.js"
import { parseID } from "../id/parse-id.js"
import type { MessageInfo, WithParts } from "../message/info.js"
import type { Part } from "../message/part.js"
import type { SessionInfo } from "../schema/session.js"
import {
  type CheckedStorage,
  type CheckedWrite,
  checkedWriteOf,
  writeChecked,
} from "../storage/checked-write.js"
import type { Storage, StorageWrite } from "../storage/port.js"
import { StorageError } from "../storage/storage-error.js"
import type { SessionDeps } from "./deps.js"
import { creationFloor, sessionFloor } from "./floor.js"
import { PartDelta, recordedUsage, SaveMessageInput } from "./input.js"
import { addTokens } from "./tree-usage.js"

/**
 * The low-level writers the processor and custom loops use. Each writes one row (or one
 * message with its parts, or one step's end), validated by storage, and publishes its event; a
 * delta is only published.
 */
export type MessageWriters = {
  /** An ID for a new message of this session, sorting after every message and part already in it. */
  newMessageID(sessionID: string): Promise<string>
  /** An ID for a new part of a message, sorting after the message and earlier parts made here. */
  newPartID(messageID: string): string
  updateMessage(info: MessageInfo): Promise<MessageInfo>
  /** Writes a message with its parts in one atomic write, then publishes each. */
  saveMessage(message: WithParts): Promise<WithParts>
  updatePart<P extends Part>(part: P): Promise<P>
  /** Publishes a streamed piece of a text or reasoning part. Never written: the part itself is. */
  updatePartDelta(input: PartDelta): void
  removeMessage(input: { sessionID: string; messageID: string }): Promise<void>
  removePart(input: { sessionID: string; messageID: string; partID: string }): Promise<void>
  /**
   * Adds one step's cost and tokens to the session's totals. `message`, the assistant message
   * that now includes the same usage, and `parts` (the step's closing parts) are written in the
   * same atomic write: a crash between two writes would leave the session's totals below the sum
   * of its messages for good, and one write per step end is cheaper than three.
   */
  recordUsage: (
    sessionID: string,
    usage: Pick<SessionInfo, "cost" | "costUnknown" | "tokens">,
    message?: MessageInfo,
    parts?: readonly Part[],
  ) => Promise<SessionInfo>
}

const OWN_ROWS = Symbol("agentloop.ownRows")

/**
 * Which rows of a writer's call the runtime assembled itself from values already checked, in
 * the order the call writes them (the message, then its parts): storage skips their schema
 * parse (see CheckedWrite). Only `ownRows` makes one, so rows a host hands a writer are parsed.
 */
export type OwnRows = { readonly [OWN_ROWS]: readonly boolean[] }

export function ownRows(...flags: boolean[]): OwnRows {
  return { [OWN_ROWS]: flags }
}

/**
 * The writers as the processor calls them, saying which rows it built. Not on the public
 * types: a host's own writers (a custom loop's) get the extra argument and may ignore it.
 */
export type OwnRowWriters = {
  updateMessage(info: MessageInfo, own?: OwnRows): Promise<MessageInfo>
  saveMessage(message: WithParts, own?: OwnRows): Promise<WithParts>
  updatePart<P extends Part>(part: P, own?: OwnRows): Promise<P>
  recordUsage(
    sessionID: string,
    usage: Pick<SessionInfo, "cost" | "costUnknown" | "tokens">,
    message?: MessageInfo,
    parts?: readonly Part[],
    own?: OwnRows,
  ): Promise<SessionInfo>
}

export function createMessageWriters(deps: SessionDeps): MessageWriters {
  const isPartDelta = createDeltaCheck()
  return {
    async newMessageID(sessionID) {
      const id = parseID("sessionID", "session", sessionID)
      deps.assertOpen()
      return deps.ids.ascending("message", (await sessionFloor(deps.storage, id)) ?? creationFloor(id))
    },
    newPartID: (messageID) => deps.ids.ascending("part", parseID("messageID", "message", messageID)),
    updateMessage: (info, own?: OwnRows) => updateMessage(deps, info, own),
    saveMessage: (message, own?: OwnRows) => saveMessage(deps, message, own),
    updatePart: (part, own?: OwnRows) => updatePart(deps, part, own),
    updatePartDelta(input) {
      deps.assertOpen()
      // Called once per streamed delta: a well-formed delta is checked by hand, zod only names
      // what is wrong with the rest.
      const delta = isPartDelta(input) ? input : parseInput("part delta", PartDelta, input)
      deps.bus.publish("message.part.delta", delta)
    },
    removeMessage: (input) => removeMessage(deps, input),
    removePart: (input) => removePart(deps, input),
    recordUsage: (sessionID, usage, message, parts = [], own?: OwnRows) =>
      recordUsage(deps, { sessionID, usage, message, parts }, own),
  }
}

async function updateMessage(deps: SessionDeps, info: MessageInfo, own?: OwnRows): Promise<MessageInfo> {
  deps.assertOpen()
  await putRows(deps.storage, withFlags([{ type: "message.put", info }], own))
  deps.messageOwners?.record(info.id, info.sessionID)
  deps.bus.publish("message.updated", { sessionID: info.sessionID, info })
  return info
}

async function saveMessage(deps: SessionDeps, message: WithParts, own?: OwnRows): Promise<WithParts> {
  deps.assertOpen()
  try {
    const writes: StorageWrite[] = [
      { type: "message.put", info: message.info },
      ...message.parts.map((part) => ({ type: "part.put" as const, part })),
    ]
    await putRows(deps.storage, withFlags(writes, own))
  } catch (error) {
    // Storage checks every row against the same schemas and writes nothing when one fails;
    // the input is checked only then, to name a malformed field as the caller wrote it.
    parseInput("session.saveMessage input", SaveMessageInput, { message })
    throw error
  }
  deps.messageOwners?.record(message.info.id, message.info.sessionID)
  deps.bus.publish("message.updated", { sessionID: message.info.sessionID, info: message.info })
  for (const part of message.parts)
    deps.bus.publish("message.part.updated", { sessionID: part.sessionID, part })
  return message
}

async function updatePart<P extends Part>(deps: SessionDeps, part: P, own?: OwnRows): Promise<P> {
  deps.assertOpen()
  await putRows(deps.storage, withFlags([{ type: "part.put", part }], own))
  deps.bus.publish("message.part.updated", { sessionID: part.sessionID, part })
  return part
}

async function removeMessage(
  deps: SessionDeps,
  input: { sessionID: string; messageID: string },
): Promise<void> {
  const sessionID = parseID("sessionID", "session", input.sessionID)
  const messageID = parseID("messageID", "message", input.messageID)
  deps.assertOpen()
  await deps.storage.write([{ type: "message.remove", sessionID, messageID }])
  deps.bus.publish("message.removed", { sessionID, messageID })
}

async function removePart(
  deps: SessionDeps,
  input: { sessionID: string; messageID: string; partID: string },
): Promise<void> {
  const sessionID = parseID("sessionID", "session", input.sessionID)
  const messageID = parseID("messageID", "message", input.messageID)
  const partID = parseID("partID", "part", input.partID)
  deps.assertOpen()
  await deps.storage.write([{ type: "part.remove", sessionID, messageID, partID }])
  deps.bus.publish("message.part.removed", { sessionID, messageID, partID })
}

/** See MessageWriters.recordUsage; `own` flags the message (when given) and the parts. */
async function recordUsage(
  deps: SessionDeps,
  step: {
    sessionID: string
    usage: Pick<SessionInfo, "cost" | "costUnknown" | "tokens">
    message: MessageInfo | undefined
    parts: readonly Part[]
  },
  own?: OwnRows,
): Promise<SessionInfo> {
  const { message, parts } = step
  const added = recordedUsage(step.usage)
  deps.assertOpen()
  const id = parseID("sessionID", "session", step.sessionID)
  const current = await deps.storage.getSession(id)
  if (!current) throw NotFoundError.of("Session", id)
  const info: SessionInfo = {
    ...current,
    cost: new Decimal(current.cost).plus(added.cost).toNumber(),
    ...(current.costUnknown || added.costUnknown ? { costUnknown: true as const } : {}),
    tokens: addTokens(current.tokens, added.tokens),
    time: { ...current.time, updated: Date.now() },
  }
  const writes: StorageWrite[] = [
    ...(message ? [{ type: "message.put" as const, info: message }] : []),
    ...parts.map((part) => ({ type: "part.put" as const, part })),
  ]
  // The totals are built here, from a stored session and a checked usage.
  await putRows(deps.storage, [
    ...withFlags(writes, own),
    { write: { type: "session.put", info }, checked: true },
  ])
  if (message) deps.bus.publish("message.updated", { sessionID: message.sessionID, info: message })
  for (const part of parts) deps.bus.publish("message.part.updated", { sessionID: part.sessionID, part })
  deps.bus.publish("session.updated", { sessionID: info.id, info })
  return info
}

/** The writes of a writer's call, each flagged as `own` says (see OwnRows). */
function withFlags(writes: readonly StorageWrite[], own: OwnRows | undefined): CheckedWrite[] {
  const flags = own?.[OWN_ROWS]
  return writes.map((write, index) => ({ write, checked: flags?.[index] === true }))
}

/**
 * Hands a batch to storage: to its checked write path when it has one (see checkedWriteOf),
 * else to `write`, which parses every row.
 */
function putRows(storage: CheckedStorage, writes: readonly CheckedWrite[]): Promise<void> {
  const checked = checkedWriteOf(storage)
  return checked ? checked.call(storage, writes) : storage.write(writes.map((entry) => entry.write))
}

/**
 * Whether a delta is well formed, checked by hand. Its part's deltas come one after another,
 * so the IDs are checked once per part, not once per delta.
 */
function createDeltaCheck(): (input: PartDelta) => boolean {
  let lastPart: Pick<PartDelta, "sessionID" | "messageID" | "partID"> | undefined
  return (input) => {
    if (!isDeltaShaped(input)) return false
    const known =
      lastPart !== undefined &&
      input.partID === lastPart.partID &&
      input.messageID === lastPart.messageID &&
      input.sessionID === lastPart.sessionID
    if (known) return true
    if (!(isID("session", input.sessionID) && isID("message", input.messageID) && isID("part", input.partID)))
      return false
    lastPart = { sessionID: input.sessionID, messageID: input.messageID, partID: input.partID }
    return true
  }
}

const DELTA_KEYS = 5

/** A delta's shape, its IDs aside: an object of the five keys, a text field and a string delta. */
function isDeltaShaped(input: PartDelta): boolean {
  return (
    typeof input === "object" &&
    input !== null &&
    input.field === "text" &&
    typeof input.delta === "string" &&
    Object.keys(input).length === DELTA_KEYS
  )
}

/**
 * The storage as the loop writes to it. Writes to frozen sessions fail with RuntimeClosedError,
 * as if the process had stopped: what a run of such a session has not written by then is never
 * written. `runtime.close()` freezes the sessions whose turns wait for a human, so that they stay
 * stored exactly as a crash would leave them, and the next process resumes them when answered.
 * A write that fails with an error no one named (a host's adapter, a driver) fails with a
 * StorageError of reason "io" whose cause it is, so the loop and its callers can tell it.
 * The runtime's own batches pass on to the storage's checked write path (see putRows).
 */
export function fenceSessions(storage: Storage): {
  storage: Storage
  freeze(sessionIDs: Iterable<string>): void
} {
  const frozen = new Set<string>()
  const refuseFrozen = (writes: readonly StorageWrite[]) => {
    if (frozen.size > 0 && writes.some((write) => frozen.has(sessionOf(write) ?? "")))
      throw new RuntimeClosedError({ message: "The runtime is closed" })
  }
  const fenced: CheckedStorage = {
    getSession: (sessionID) => storage.getSession(sessionID),
    listSessions: (query) => storage.listSessions(query),
    getMessage: (sessionID, messageID) => storage.getMessage(sessionID, messageID),
    listMessages: (sessionID, query) => storage.listMessages(sessionID, query),
    getValue: (key) => storage.getValue(key),
    listValues: (prefix) => storage.listValues(prefix),
    async write(writes) {
      if (Array.isArray(writes)) refuseFrozen(writes)
      return named(() => storage.write(writes))
    },
    async [writeChecked](writes) {
      if (frozen.size > 0) refuseFrozen(writes.map((entry) => entry.write))
      return named(() => putRows(storage, writes))
    },
    close: () => storage.close(),
    ...(storage.coordinator ? { coordinator: storage.coordinator } : {}),
  }
  return {
    storage: fenced,
    freeze(sessionIDs) {
      for (const sessionID of sessionIDs) frozen.add(sessionID)
    },
  }
}

/** Runs a write; an error no one named becomes a StorageError (see fenceSessions). */
async function named(write: () => Promise<void>): Promise<void> {
  try {
    return await write()
  } catch (error) {
    if (isNamedError(error)) throw error
    const message = error instanceof Error ? error.message : String(error)
    throw new StorageError({ reason: "io", retryable: false, message }, { cause: error })
  }
}

function sessionOf(write: StorageWrite): string | undefined {
  switch (write.type) {
    case "session.put":
      return write.info.id
    case "message.put":
      return write.info.sessionID
    case "part.put":
      return write.part.sessionID
    case "session.remove":
    case "message.remove":
    case "part.remove":
      return write.sessionID
    default:
      return undefined
  }
}
