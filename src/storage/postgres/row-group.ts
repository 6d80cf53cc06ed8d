import type { StorageWrite } from "../port.js"
import { type EncodedWrite, encodeWrites } from "../rows.js"
import { encodeKey } from "./keys.js"
import type { Columns } from "./put-rows.js"

/**
 * Puts, and removes of values, that one statement applies together (see put-rows.ts): each
 * kind's rows go to the server as arrays, one upsert per kind.
 */
export type RowGroup = {
  /** The writes it holds, with their place in the batch. */
  writes: IndexedWrite[]
  columns: Columns
  /**
   * The rows the group writes, by their own ID, so that none is written twice (one statement
   * cannot). Two rows of one ID in different sessions count as one: a group more, nothing else.
   */
  touched: Set<string>
  /**
   * The sessions and messages its rows need to exist: a message's ID to its session's, or to
   * ANY_SESSION when rows of several sessions need a message of that ID; a session's ID to "".
   */
  needed: Map<string, string>
}

/** What `needed` holds for a message ID that rows of several sessions need (see RowGroup). */
const ANY_SESSION = "*"

/**
 * A write of a batch, its place in the batch, and the JSON text of the row or value it puts
 * (encodeWrites'): what is stored, encoded once.
 */
export type IndexedWrite = EncodedWrite & { index: number }

/** One step of a batch: a group of rows, or a write that runs alone (a remove, a child session). */
export type Step = { group: RowGroup } | IndexedWrite

type GroupableWrite = Extract<
  StorageWrite,
  { type: "session.put" | "message.put" | "part.put" | "value.put" | "value.remove" }
>

/**
 * The batch as steps, in order: consecutive puts form one group, which applies them as running
 * them one by one would. A statement checks its foreign keys at its end, where one by one a put
 * needs its session or message to exist already; so a session or message that an earlier row of
 * the group needs and that the group puts again must exist before the statement (it checks, see
 * putRowsText). No row is written twice in a group. A group of one write is that write alone:
 * its own statement is cheaper to plan.
 */
export function planBatch(writes: readonly EncodedWrite[], offset = 0): Step[] {
  const steps: Step[] = []
  let group: RowGroup | undefined
  for (let at = 0; at < writes.length; at++) {
    const { write, json } = writes[at]!
    const index = offset + at
    if (!isGroupable(write)) {
      group = undefined
      steps.push({ write, json, index })
      continue
    }
    if (!group || group.touched.has(rowKey(write))) {
      group = emptyGroup()
      steps.push({ group })
    }
    add(group, { write, json, index })
  }
  return steps.map((step) =>
    "group" in step && step.group.writes.length === 1 ? step.group.writes[0]! : step,
  )
}

/**
 * Whether a batch of these steps can run as one statement without a transaction, and again
 * after a lost connection: one group, or one put (or value remove) alone. Each is an upsert
 * or a remove of a value, so applying it twice leaves what applying it once did.
 */
export function isReplayable(steps: readonly Step[]): boolean {
  const [only] = steps
  return steps.length === 1 && ("group" in only! || isGroupable(only!.write))
}

/**
 * How many of the first steps of several replayable batches (see isReplayable) go together as
 * one group, for one statement (see put-groups.ts): as many as go without writing a row twice
 * and with at most `maxWrites` writes; the first always goes.
 */
export function mergeable(steps: readonly Step[], maxWrites: number): number {
  const touched = new Set<string>()
  let writes = 0
  let count = 0
  for (const step of steps) {
    const stepWrites = "group" in step ? step.group.writes : [step]
    const fits =
      count === 0 ||
      (writes + stepWrites.length <= maxWrites &&
        stepWrites.every(({ write }) => isGroupable(write) && !touched.has(rowKey(write))))
    if (!fits) break
    for (const { write } of stepWrites) touched.add(rowKey(write as GroupableWrite))
    writes += stepWrites.length
    count++
  }
  return count
}

/**
 * Those steps (see mergeable) as one group, in their order. A row one batch needs and a later
 * one puts must exist before the statement, as within one batch (see planBatch), so the
 * statement applies them as running the batches one after another would.
 */
export function mergeSteps(steps: readonly Step[]): RowGroup {
  const group = emptyGroup()
  for (const step of steps)
    for (const indexed of "group" in step ? step.group.writes : [step])
      add(group, indexed as IndexedWrite & { write: GroupableWrite })
  return group
}

/** Writes per chunk of a long batch (see chunkedSteps). */
export const CHUNK_WRITES = 256

/**
 * The steps of a long batch, a chunk of writes at a time: each chunk is validated and planned
 * when its steps are asked for, which runTransaction does while the previous chunk's statement
 * runs on the server. A chunk with an invalid write fails as encodeWrites names it in the
 * whole batch. Groups do not span chunks, so the steps still apply the writes as running them
 * one by one would.
 */
export function* chunkedSteps(writes: readonly unknown[]): Generator<Step> {
  for (let offset = 0; offset < writes.length; offset += CHUNK_WRITES) {
    let valid: EncodedWrite[]
    try {
      valid = encodeWrites(writes.slice(offset, offset + CHUNK_WRITES))
    } catch (error) {
      // The same write fails in the whole batch, under its index there.
      encodeWrites(writes)
      throw error
    }
    yield* planBatch(valid, offset)
  }
}

/** The batch as steps of one write each, as it was written. */
export function oneByOne(writes: readonly EncodedWrite[]): Step[] {
  return writes.map((encoded, index) => ({ ...encoded, index }))
}

function isGroupable(write: StorageWrite): write is GroupableWrite {
  switch (write.type) {
    case "session.put":
      // A child session's parent chain is checked first (see applyWrite).
      return write.info.parentID === undefined
    case "message.put":
    case "part.put":
    case "value.put":
    case "value.remove":
      return true
    default:
      return false
  }
}

function emptyGroup(): RowGroup {
  return {
    writes: [],
    columns: {
      sessions: [[], []],
      messages: [[], [], []],
      parts: [[], [], [], []],
      values: [[], []],
      removedValues: [[]],
      sessionsBefore: [[]],
      messagesBefore: [[], []],
    },
    touched: new Set(),
    needed: new Map(),
  }
}

/**
 * The key of the row a groupable write touches in RowGroup.touched: its own ID (IDs of each kind
 * have their own prefix), or for a value its key (a space keeps it apart from IDs).
 */
function rowKey(write: GroupableWrite): string {
  switch (write.type) {
    case "session.put":
    case "message.put":
      return write.info.id
    case "part.put":
      return write.part.id
    case "value.put":
    case "value.remove":
      return `v ${write.key}`
  }
}

/** Notes in `needed` that a row of the group needs this session or message. */
function need(needed: Map<string, string>, id: string, sessionID: string): void {
  const known = needed.get(id)
  needed.set(id, known === undefined || known === sessionID ? sessionID : ANY_SESSION)
}

/** Whether an earlier row of the group needs this session or message (see RowGroup.needed). */
function isNeeded(needed: Map<string, string>, id: string, sessionID: string): boolean {
  const known = needed.get(id)
  return known === sessionID || known === ANY_SESSION
}

function add(group: RowGroup, indexed: IndexedWrite & { write: GroupableWrite }): void {
  const { write } = indexed
  // Set for every put (see encodeWrites); a value remove has none.
  const json = indexed.json!
  const { columns, needed } = group
  group.writes.push(indexed)
  group.touched.add(rowKey(write))
  // A row an earlier one needs must exist before the statement: one by one, that earlier write
  // would have found it only if it existed then.
  switch (write.type) {
    case "session.put": {
      const { id } = write.info
      columns.sessions[0].push(id)
      columns.sessions[1].push(json)
      if (isNeeded(needed, id, "")) columns.sessionsBefore[0].push(id)
      return
    }
    case "message.put": {
      const { sessionID, id } = write.info
      const [sessionIDs, ids, data] = columns.messages
      sessionIDs.push(sessionID)
      ids.push(id)
      data.push(json)
      if (isNeeded(needed, id, sessionID)) {
        columns.messagesBefore[0].push(sessionID)
        columns.messagesBefore[1].push(id)
      }
      need(needed, sessionID, "")
      return
    }
    case "part.put": {
      const { sessionID, messageID, id } = write.part
      const [sessionIDs, messageIDs, ids, data] = columns.parts
      sessionIDs.push(sessionID)
      messageIDs.push(messageID)
      ids.push(id)
      data.push(json)
      need(needed, messageID, sessionID)
      return
    }
    case "value.put":
      columns.values[0].push(encodeKey(write.key))
      columns.values[1].push(json)
      return
    case "value.remove":
      columns.removedValues[0].push(encodeKey(write.key))
      return
  }
}
