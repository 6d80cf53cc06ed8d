import type { Bus } from "../bus/bus.js"
import type { WithParts } from "../message/info.js"
import type { Info } from "../schema/session.js"
import { SnapshotUnavailableError } from "../snapshot/errors.js"
import type { Snapshot } from "../snapshot/port.js"
import type { FileDiff } from "../snapshot/schema.js"
import type { Storage } from "../storage/port.js"

/** Where a revert starts: that message, or that part of it, and everything after. */
export type RevertPoint = Pick<NonNullable<Info["revert"]>, "messageID" | "partID">

/**
 * The file states a run of messages went from and to: the first step's starting snapshot and
 * the last step's ending one. Undefined when no step recorded both.
 */
export function snapshotRange(messages: readonly WithParts[]): { from: string; to: string } | undefined {
  let from: string | undefined
  let to: string | undefined
  for (const { parts } of messages)
    for (const part of parts) {
      if (part.type === "step-start" && part.snapshot && from === undefined) from = part.snapshot
      if (part.type === "step-finish" && part.snapshot && from !== undefined) to = part.snapshot
    }
  return from !== undefined && to !== undefined ? { from, to } : undefined
}

/** The messages before a revert point, with the target message cut at its part when one is named. */
export function beforeRevert(messages: readonly WithParts[], point: RevertPoint | undefined): WithParts[] {
  if (!point) return [...messages]
  const kept: WithParts[] = []
  for (const message of messages) {
    if (message.info.id < point.messageID) kept.push(message)
    else if (message.info.id === point.messageID && point.partID !== undefined) {
      const { partID } = point
      kept.push({ ...message, parts: message.parts.filter((part) => part.id < partID) })
    }
  }
  return kept
}

/** The messages of the turn a user message started: it and the answers up to the next user message. */
export function turnOf(messages: readonly WithParts[], userID: string): WithParts[] {
  const start = messages.findIndex((message) => message.info.id === userID)
  if (start < 0) return []
  const next = messages.findIndex((message, index) => index > start && message.info.role === "user")
  return messages.slice(start, next < 0 ? undefined : next)
}

/** The patch parts at and after a revert point, oldest first: the files to put back. */
export function patchesFrom(messages: readonly WithParts[], point: RevertPoint) {
  const patches: { hash: string; files: string[] }[] = []
  for (const message of messages) {
    if (message.info.id < point.messageID) continue
    for (const part of message.parts) {
      if (part.type !== "patch") continue
      if (message.info.id === point.messageID && point.partID !== undefined && part.id < point.partID)
        continue
      patches.push({ hash: part.hash, files: part.files })
    }
  }
  return patches
}

export function totals(diffs: readonly FileDiff[]) {
  let additions = 0
  let deletions = 0
  for (const diff of diffs) {
    additions += diff.additions
    deletions += diff.deletions
  }
  return { additions, deletions, files: diffs.length }
}

/**
 * Diffs as one unified patch text, as `git diff` would print it. `diff` is loaded here, at the
 * first revert, not when the package is imported: most processes never revert.
 */
export async function unifiedPatch(diffs: readonly FileDiff[]): Promise<string> {
  const { createTwoFilesPatch } = await import("diff")
  return diffs
    .map((diff) => createTwoFilesPatch(`a/${diff.file}`, `b/${diff.file}`, diff.before, diff.after))
    .join("")
}

/** What revert, unrevert, diff and the turn summaries need from the runtime. */
export type FileHistoryDeps = {
  storage: Storage
  bus: Bus
  snapshot: Snapshot | undefined
  assertOpen(): void
  /** Whether the session runs, or has tool calls waiting for an answer. */
  isBusy(sessionID: string): Promise<boolean>
}

export function requireSnapshot(snapshot: Snapshot | undefined): Snapshot {
  if (snapshot) return snapshot
  throw new SnapshotUnavailableError({
    message: "No Snapshot is configured: pass createRuntime({ snapshot }) to record, diff and revert files",
  })
}
