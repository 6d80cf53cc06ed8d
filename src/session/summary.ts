import { parseInput } from "../error/invalid-input.js"
import { NotFoundError } from "../error/not-found.js"
import type { User, WithParts } from "../message/info.js"
import type { Info } from "../schema/session.js"
import { SnapshotUnavailableError } from "../snapshot/errors.js"
import type { FileDiff } from "../snapshot/schema.js"
import type { StorageWrite } from "../storage/port.js"
import {
  beforeRevert,
  type FileHistoryDeps,
  requireSnapshot,
  snapshotRange,
  totals,
  turnOf,
} from "./file-history.js"
import { DiffInput, type DiffInput as DiffInputType } from "./input.js"

/**
 * What the recorded steps changed in the files: per turn (kept on the user message that started
 * it), per assistant message, and for the whole session (its counts kept on the session). Diffs
 * go from the first step's starting snapshot to the last step's ending one, so edits made
 * between turns by someone else count too, as they do in OpenCode.
 */
export function createSummary(deps: FileHistoryDeps) {
  const { storage, bus } = deps

  async function between(messages: readonly WithParts[]): Promise<FileDiff[]> {
    const range = snapshotRange(messages)
    return range ? requireSnapshot(deps.snapshot).diff(range.from, range.to) : []
  }

  /** The session's counts for what its visible messages changed, written with `writes`. */
  async function withTotals(session: Info, messages: readonly WithParts[]) {
    const diffs = await between(beforeRevert(messages, session.revert))
    const info: Info = { ...session, summary: totals(diffs), time: { ...session.time, updated: Date.now() } }
    return { info, diffs }
  }

  /** Writes a session changed by a file operation, with other writes, and publishes it. */
  async function commit(info: Info, diffs: FileDiff[], writes: StorageWrite[] = []): Promise<Info> {
    await storage.write([...writes, { type: "session.put", info }])
    bus.publish("session.updated", { sessionID: info.id, info })
    bus.publish("session.diff", { sessionID: info.id, diff: diffs })
    return info
  }

  /**
   * After a turn: the user message gets what its turn changed, the session its totals, and
   * `session.diff` is published. Nothing happens when no step of the turn recorded snapshots.
   * `userID` is the message the turn answered: a prompt stored as the run ended is newer, and
   * has no steps yet. Without it, the latest user message.
   */
  async function summarize(sessionID: string, userID?: string): Promise<void> {
    if (!deps.snapshot) return
    const session = await storage.getSession(sessionID)
    if (!session) return
    const messages = await storage.listMessages(sessionID)
    const user =
      messages.find((message) => message.info.role === "user" && message.info.id === userID) ??
      messages.findLast((message) => message.info.role === "user")
    if (!user) return
    const turn = turnOf(messages, user.info.id)
    if (!snapshotRange(turn)) return
    const info: User = { ...(user.info as User), summary: { diffs: await between(turn) } }
    const { info: next, diffs } = await withTotals(session, messages)
    await commit(next, diffs, [{ type: "message.put", info }])
    bus.publish("message.updated", { sessionID, info })
  }

  async function diff(input: DiffInputType): Promise<FileDiff[]> {
    deps.assertOpen()
    const { sessionID, messageID } = parseInput("session.diff input", DiffInput, input)
    const session = await storage.getSession(sessionID)
    if (!session) throw NotFoundError.of("Session", sessionID)
    const snapshot = requireSnapshot(deps.snapshot)
    const messages = await storage.listMessages(sessionID)
    let range: WithParts[]
    if (messageID === undefined) range = beforeRevert(messages, session.revert)
    else {
      const message = messages.find((candidate) => candidate.info.id === messageID)
      if (!message) throw NotFoundError.of("Message", messageID)
      if (message.info.role === "user" && message.info.summary) return message.info.summary.diffs
      range = message.info.role === "assistant" ? [message] : turnOf(messages, messageID)
    }
    // Nothing recorded: because nothing ran, or because the Snapshot cannot record at all.
    if (!snapshotRange(range) && (await snapshot.track()) === undefined)
      throw new SnapshotUnavailableError({
        message: "The Snapshot cannot record the files (is git installed?)",
      })
    return between(range)
  }

  return { summarize, diff, withTotals, commit }
}

export type Summary = ReturnType<typeof createSummary>
