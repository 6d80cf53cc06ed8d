import { existsSync } from "node:fs"
import { createProvider, createRuntime, type Runtime } from "../../src/index.js"
import { SqliteStorage } from "../../src/storage/sqlite/index.js"
import { say, scriptedModel, testModelInfo } from "../../src/testing/index.js"
import type { Acks } from "./acks.js"
import { describeError, integrityProblem, isStorageFault } from "./integrity.js"
import type { RunPlan } from "./plan.js"
import { probeRules, probeTool } from "./probe-tool.js"
import { costMismatch, lostParts, lostWrites, unrepairedRows } from "./stored-checks.js"

/** The checks of a trial, in the order they run, with the names the report counts them under. */
export const CHECKS = {
  integrity: "integrity errors",
  lost: "lost acknowledged writes",
  unrepaired: "unrepaired rows",
  cost: "cost mismatches",
  loop: "turns loop() failed to continue",
  continue: "did not continue",
  harness: "harness errors (the child failed by itself, or the checks crashed)",
} as const
export type Check = keyof typeof CHECKS
export type Finding = { check: Check; detail: string }

/** No step of a check may hang the run (Principle 8 applies to the harness too). */
const STEP_TIMEOUT_MS = 20_000

/**
 * Checks a to e on the file a killed child left: SQLite's integrity, then a new runtime on it
 * that must find every acknowledged write, repair what was cut off, keep its totals, and go on.
 */
export async function checkFile(file: string, acks: Acks, plan: RunPlan): Promise<Finding[]> {
  // Killed before SQLite created the file: nothing was stored and nothing was promised.
  if (!existsSync(file)) return acks.sessionID ? [{ check: "lost", detail: "the database file is gone" }] : []
  let storage: SqliteStorage
  try {
    const problem = integrityProblem(file)
    if (problem) return [{ check: "integrity", detail: problem }]
    // The child is dead: alone with the file, the checks need not wait for its leases to expire.
    storage = new SqliteStorage(file, { coordinator: false })
  } catch (error) {
    return [{ check: "integrity", detail: `opening the file: ${describeError(error)}` }]
  }
  const runtime = checkingRuntime(storage)
  const findings: Finding[] = []
  let unreadable = false
  const step = async (check: Check, run: () => Promise<string[]>) => {
    // A row that cannot be read fails every later check the same way: report it once.
    if (unreadable) return
    try {
      for (const detail of await within(run(), check)) findings.push({ check, detail })
    } catch (error) {
      unreadable = isStorageFault(error)
      findings.push({ check: unreadable ? "integrity" : check, detail: `threw ${describeError(error)}` })
    }
  }
  try {
    // A session stored just before the kill, before its ack line, is checked too.
    let found = acks.sessionID
    await step("lost", async () => {
      found ??= (await storage.listSessions())[0]?.id
      return lostWrites(storage, found, acks, plan)
    })
    if (found === undefined) return findings
    const sessionID = found
    await step("unrepaired", async () => {
      const before = await storage.listMessages(sessionID)
      // The first read through the runtime is the one that repairs.
      const after = await runtime.session.messages(sessionID)
      const pending = (await runtime.permission.list()).filter((request) => request.sessionID === sessionID)
      // A busy trial's child was not killed: its own runtime closed what each failed turn left
      // open, so the file as it left it must hold nothing unfinished before any repair here.
      const ownRepair =
        plan.fault.kind === "busy"
          ? unrepairedRows([], before, []).map((problem) => `left by the child: ${problem}`)
          : []
      return [...ownRepair, ...unrepairedRows(before, after, pending)]
    })
    await step("lost", async () => lostParts(await runtime.session.messages(sessionID), acks))
    await step("cost", async () =>
      costMismatch(await runtime.session.get(sessionID), await runtime.session.messages(sessionID)),
    )
    if (plan.resume === "loop") await step("loop", () => loopContinues(runtime, sessionID))
    await step("continue", () => continues(runtime, sessionID))
    // What the continued run wrote must hold together as well.
    await step("cost", async () =>
      costMismatch(await runtime.session.get(sessionID), await runtime.session.messages(sessionID)).map(
        (problem) => `after continuing: ${problem}`,
      ),
    )
    return findings
  } finally {
    await within(runtime.close(), "close").catch(() => undefined)
  }
}

/**
 * Check e: answer what still waits and let that run finish, then a new prompt gets a good answer,
 * and nothing is left unfinished afterwards. A call approved after the restart must have run.
 */
async function continues(runtime: Runtime, sessionID: string): Promise<string[]> {
  const pending = (await runtime.permission.list()).filter((request) => request.sessionID === sessionID)
  for (const request of pending) await runtime.permission.reply({ requestID: request.id, reply: "once" })
  if (pending.length > 0) await runtime.session.loop(sessionID)
  const answer = await runtime.session.prompt({ sessionID, parts: [{ type: "text", text: "still there?" }] })
  if (answer.info.role !== "assistant") return [`"still there?" resolved with a ${answer.info.role} message`]
  if (answer.info.error)
    return [`"still there?" failed: ${answer.info.error.name} ${JSON.stringify(answer.info.error.data)}`]
  const messages = await runtime.session.messages(sessionID)
  const problems = unrepairedRows([], messages, []).map((problem) => `after continuing: ${problem}`)
  for (const { tool } of pending) {
    const part = messages
      .find((message) => message.info.id === tool?.messageID)
      ?.parts.find((candidate) => candidate.type === "tool" && candidate.callID === tool?.callID)
    const state = part?.type === "tool" ? part.state : undefined
    const ended = !state ? "missing" : state.status === "error" ? `error (${state.error})` : state.status
    // The probe tool always succeeds once allowed.
    if (tool && state?.status !== "completed")
      problems.push(`call ${tool.callID} was allowed after the restart but ended ${ended}`)
  }
  return problems
}

/**
 * Loop mode: a turn the kill cut (its user message without a final answer) is continued by
 * `loop()` alone, which must answer that user message without error. Requests still waiting
 * are answered first, as a host would.
 */
async function loopContinues(runtime: Runtime, sessionID: string): Promise<string[]> {
  const pending = (await runtime.permission.list()).filter((request) => request.sessionID === sessionID)
  for (const request of pending) await runtime.permission.reply({ requestID: request.id, reply: "once" })
  const messages = await runtime.session.messages(sessionID)
  const user = messages.findLast((message) => message.info.role === "user")
  const last = messages.at(-1)
  if (!user) return []
  const answered =
    last?.info.role === "assistant" &&
    last.info.id > user.info.id &&
    !last.info.error &&
    last.info.finish !== undefined &&
    last.info.finish !== "tool-calls"
  if (answered) return []
  const answer = await runtime.session.loop(sessionID)
  if (answer.info.role !== "assistant") return [`loop() resolved with a ${answer.info.role} message`]
  if (answer.info.error)
    return [
      `loop() ended the cut turn with ${answer.info.error.name} ${JSON.stringify(answer.info.error.data)}`,
    ]
  if (answer.info.parentID !== user.info.id) return ["loop() answered another message than the cut turn's"]
  if (answer.info.finish !== "stop") return [`loop() ended the cut turn with finish ${answer.info.finish}`]
  return []
}

/** A runtime like the child's, whose model answers any call with a short text. */
function checkingRuntime(storage: SqliteStorage): Runtime {
  const ref = { providerID: testModelInfo.providerID, modelID: testModelInfo.id }
  const model = scriptedModel([], {
    fallback: [say.text("Still here."), say.usage({ input: 200, output: 4 })],
  })
  return createRuntime({
    provider: createProvider({ models: [{ ...ref, language: model, info: testModelInfo }], default: ref }),
    storage,
    tools: [probeTool],
    permission: probeRules,
    onPermission: () => "once",
    askTimeoutMs: STEP_TIMEOUT_MS,
  })
}

function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} did not settle in ${STEP_TIMEOUT_MS} ms`)),
      STEP_TIMEOUT_MS,
    )
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}
