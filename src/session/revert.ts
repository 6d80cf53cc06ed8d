import { parseInput } from "../error/invalid-input.js"
import { NotFoundError } from "../error/not-found.js"
import type { Info } from "../schema/session.js"
import { SnapshotUnavailableError } from "../snapshot/errors.js"
import type { Snapshot } from "../snapshot/port.js"
import type { StorageWrite } from "../storage/port.js"
import { BusyError } from "./errors.js"
import {
  type FileHistoryDeps,
  patchesFrom,
  type RevertPoint,
  requireSnapshot,
  unifiedPatch,
} from "./file-history.js"
import {
  RevertInput,
  type RevertInput as RevertInputType,
  UnrevertInput,
  type UnrevertInput as UnrevertInputType,
} from "./input.js"
import type { Summary } from "./summary.js"
import { revertKey } from "./values.js"

/**
 * The file work a revert or unrevert still has to do, stored before any file is touched: a
 * process that stops half way leaves it, and the next revert, unrevert, prompt or loop on the
 * session does it again (both kinds are idempotent) before going on.
 */
type Pending =
  | { type: "revert"; restore?: string; patches: Snapshot.Patch[] }
  | { type: "unrevert"; restore: string }

/**
 * Revert puts the files back as they were before a message (or part) and hides it and what
 * follows; unrevert brings both back; the next prompt makes a revert final (cleanup), as in
 * OpenCode. The session's `revert` says where the hidden part starts and which snapshot
 * unrevert returns to.
 */
export function createRevert(deps: FileHistoryDeps, summary: Summary) {
  const self: RevertState = { deps, summary, tails: new Map() }
  return {
    revert: (input: RevertInputType) => serial(self, String(input?.sessionID), () => revert(self, input)),
    unrevert: (input: UnrevertInputType) =>
      serial(self, String(input?.sessionID), () => unrevert(self, input)),
    cleanup: (sessionID: string) => serial(self, sessionID, () => cleanup(self, sessionID)),
  }
}

/**
 * What revert works with. One file operation per session at a time: two prompts making the same
 * revert final, or a revert racing a cleanup, would remove the same rows twice or move files
 * under each other. Each session's queue is its tail promise in `tails`, dropped once it settles.
 */
type RevertState = { deps: FileHistoryDeps; summary: Summary; tails: Map<string, Promise<unknown>> }

function serial<T>(self: RevertState, sessionID: string, work: () => Promise<T>): Promise<T> {
  const { tails } = self
  const run = (tails.get(sessionID) ?? Promise.resolve()).then(work)
  const tail = run.catch(() => undefined)
  tails.set(sessionID, tail)
  void tail.then(() => {
    if (tails.get(sessionID) === tail) tails.delete(sessionID)
  })
  return run
}

async function load(deps: FileHistoryDeps, sessionID: string): Promise<Info> {
  const session = await deps.storage.getSession(sessionID)
  if (!session) throw NotFoundError.of("Session", sessionID)
  return session
}

async function idle(deps: FileHistoryDeps, sessionID: string): Promise<Info> {
  deps.assertOpen()
  const session = await load(deps, sessionID)
  if (await deps.isBusy(sessionID)) throw BusyError.of(sessionID)
  await finishPending(deps, sessionID)
  return session
}

async function finishPending(deps: FileHistoryDeps, sessionID: string): Promise<void> {
  const pending = (await deps.storage.getValue(revertKey(sessionID))) as Pending | undefined
  if (!pending) return
  await apply(requireSnapshot(deps.snapshot), pending)
  await deps.storage.write([{ type: "value.remove", key: revertKey(sessionID) }])
}

async function apply(snapshot: Snapshot, pending: Pending): Promise<void> {
  // Back to a state exactly: the files changed since are put back or, when that state did
  // not have them, deleted. Snapshot.restore would leave files created since.
  if (pending.restore !== undefined) await snapshot.revert([await snapshot.patch(pending.restore)])
  if (pending.type === "revert") await snapshot.revert(pending.patches)
}

async function revert({ deps, summary }: RevertState, input: RevertInputType): Promise<Info> {
  const { sessionID, messageID, partID } = parseInput("session.revert input", RevertInput, input)
  const session = await idle(deps, sessionID)
  const snapshot = requireSnapshot(deps.snapshot)
  const messages = await deps.storage.listMessages(sessionID)
  const target = messages.find((message) => message.info.id === messageID)
  if (!target) throw NotFoundError.of("Message", messageID)
  // A part that is the message's first stands for the whole message.
  const partIndex = partID === undefined ? 0 : target.parts.findIndex((part) => part.id === partID)
  if (partIndex < 0) throw NotFoundError.of("Part", partID as string)
  const point: RevertPoint = { messageID, ...(partIndex > 0 ? { partID } : {}) }

  // Unrevert returns to the newest files: those from before an earlier revert, if any.
  const latest = session.revert?.snapshot ?? (await snapshot.track())
  if (latest === undefined)
    throw new SnapshotUnavailableError({
      message: "The current files could not be recorded, so nothing was reverted",
    })
  const pending: Pending = {
    type: "revert",
    ...(session.revert?.snapshot === undefined ? {} : { restore: session.revert.snapshot }),
    patches: patchesFrom(messages, point),
  }
  const marked: Info = { ...session, revert: { ...point, snapshot: latest } }
  await write(deps, marked, [{ type: "value.put", key: revertKey(sessionID), value: pending }])
  await apply(snapshot, pending)

  const undone = await unifiedPatch(await snapshot.diff(latest))
  const { info, diffs } = await summary.withTotals(
    { ...marked, revert: { ...marked.revert!, diff: undone } },
    messages,
  )
  return summary.commit(info, diffs, [{ type: "value.remove", key: revertKey(sessionID) }])
}

async function unrevert({ deps, summary }: RevertState, input: UnrevertInputType): Promise<Info> {
  const { sessionID } = parseInput("session.unrevert input", UnrevertInput, input)
  const session = await idle(deps, sessionID)
  if (!session.revert) return session
  const snapshot = requireSnapshot(deps.snapshot)
  const { revert: _, ...rest } = session
  if (session.revert.snapshot !== undefined) {
    const pending: Pending = { type: "unrevert", restore: session.revert.snapshot }
    await write(deps, session, [{ type: "value.put", key: revertKey(sessionID), value: pending }])
    await apply(snapshot, pending)
  }
  const { info, diffs } = await summary.withTotals(rest, await deps.storage.listMessages(sessionID))
  return summary.commit(info, diffs, [{ type: "value.remove", key: revertKey(sessionID) }])
}

/**
 * Makes a revert final before the session moves on: the hidden messages and parts are
 * removed for good, in one write with the session that no longer names them.
 */
async function cleanup({ deps }: RevertState, sessionID: string): Promise<void> {
  // Unfinished file work is only ever stored with (or under) a session's revert.
  if (!(await load(deps, sessionID)).revert) return
  await finishPending(deps, sessionID)
  const { revert: point, ...rest } = await load(deps, sessionID)
  if (!point) return
  const writes: StorageWrite[] = []
  const removed: { messageID: string; partID?: string }[] = []
  for (const message of await deps.storage.listMessages(sessionID)) {
    const { id } = message.info
    if (id > point.messageID || (id === point.messageID && point.partID === undefined)) {
      writes.push({ type: "message.remove", sessionID, messageID: id })
      removed.push({ messageID: id })
    } else if (id === point.messageID && point.partID !== undefined) {
      for (const part of message.parts.filter((candidate) => candidate.id >= point.partID!)) {
        writes.push({ type: "part.remove", sessionID, messageID: id, partID: part.id })
        removed.push({ messageID: id, partID: part.id })
      }
    }
  }
  await write(deps, { ...rest, time: { ...rest.time, updated: Date.now() } }, writes)
  for (const { messageID, partID } of removed)
    if (partID === undefined) deps.bus.publish("message.removed", { sessionID, messageID })
    else deps.bus.publish("message.part.removed", { sessionID, messageID, partID })
}

async function write(deps: FileHistoryDeps, info: Info, writes: StorageWrite[]): Promise<void> {
  await deps.storage.write([...writes, { type: "session.put", info }])
  deps.bus.publish("session.updated", { sessionID: info.id, info })
}

export type Revert = ReturnType<typeof createRevert>
