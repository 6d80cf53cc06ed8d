import { createProvider, createRuntime, type Runtime, type Storage } from "../../src/index.js"
import { say, scriptedModel, testModelInfo } from "../../src/testing/index.js"
import type { Acks } from "./acks.js"
import { continues, loopContinues } from "./continue-checks.js"
import { describeError, isStorageFault } from "./integrity.js"
import type { RunPlan } from "./plan.js"
import { probeRules, probeTool } from "./probe-tool.js"
import { costMismatch, lostParts, lostWrites, unrepairedRows } from "./stored-checks.js"

/** The checks of a trial, in the order they run, with the names the report counts them under. */
export const CHECKS = {
  named: "faults the child met under another reason than the fault's",
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
 * Checks b to e on what a child left in `storage` (the child is gone): a new runtime on it must
 * find every acknowledged write, repair what was cut off, keep its totals, and go on. Closes
 * `storage`.
 */
export async function checkStorage(storage: Storage, acks: Acks, plan: RunPlan): Promise<Finding[]> {
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
      // Only a kill trial's child was killed: in the others its own runtime closed what each
      // failed turn left open, so storage as it left it must hold nothing unfinished.
      const ownRepair =
        plan.fault.kind !== "kill"
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
 * A runtime like the child's, whose model answers any call with a short text. No coordinator:
 * the child is gone, and the checks need not wait for what it held to expire.
 */
function checkingRuntime(storage: Storage): Runtime {
  const ref = { providerID: testModelInfo.providerID, modelID: testModelInfo.id }
  const model = scriptedModel([], {
    fallback: [say.text("Still here."), say.usage({ input: 200, output: 4 })],
  })
  return createRuntime({
    provider: createProvider({ models: [{ ...ref, language: model, info: testModelInfo }], default: ref }),
    storage,
    coordinator: false,
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
