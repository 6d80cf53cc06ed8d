import { afterEach, describe, expect, it, vi } from "vitest"
import { STALL_MS } from "../../src/storage/postgres/options.js"
import { createPutGroups } from "../../src/storage/postgres/put-groups.js"
import { planBatch, type RowGroup, type Step } from "../../src/storage/postgres/row-group.js"
import { encodeWrites } from "../../src/storage/rows.js"
import { StorageError } from "../../src/storage/storage-error.js"
import { createBuilders } from "../../src/testing/index.js"

// How PostgresStorage's put batches wait for each other and go together, with the statements
// faked: merged statements and lone batches are recorded, and settle when the test says.

/** A replayable batch's step: one part of a session of its own. */
function partStep(): Step {
  const build = createBuilders()
  const session = build.session()
  const part = build.text(session.id, build.user(session.id).id)
  return planBatch(encodeWrites([{ type: "part.put", part }]))[0]!
}

/** A promise and its settlers. */
function later() {
  let resolve!: () => void
  let reject!: (error: unknown) => void
  const promise = new Promise<void>((yes, no) => {
    resolve = yes
    reject = no
  })
  return { promise, resolve, reject }
}

/** Put groups whose statements are recorded and wait for the test to settle them. */
function faked() {
  const merged: { group: RowGroup; done: ReturnType<typeof later> }[] = []
  const alone: { index: number; done: ReturnType<typeof later> }[] = []
  const groups = createPutGroups((group) => {
    const done = later()
    merged.push({ group, done })
    return done.promise
  })
  let next = 0
  const put = () => {
    const index = next++
    return groups.put(partStep(), () => {
      const done = later()
      alone.push({ index, done })
      return done.promise
    })
  }
  return { groups, merged, alone, put }
}

/** Lets queued microtasks and promise reactions run. */
const settled = () => new Promise((resolve) => setImmediate(resolve))

afterEach(() => {
  vi.useRealTimers()
})

describe("PostgresStorage put groups", () => {
  it("sends a lone batch alone at once, and the batches that came meanwhile as one statement after it", async () => {
    const { merged, alone, put } = faked()
    const first = put()
    await settled()
    expect(alone.map((call) => call.index)).toEqual([0])
    const waiting = [put(), put(), put()]
    await settled()
    expect(merged).toHaveLength(0)
    alone[0]!.done.resolve()
    await first
    await settled()
    expect(merged).toHaveLength(1)
    expect(merged[0]!.group.writes).toHaveLength(3)
    merged[0]!.done.resolve()
    await Promise.all(waiting)
  })

  it("fails every batch of a merged statement at once on a StorageError, running none of them alone", async () => {
    const { merged, alone, put } = faked()
    const outcomes = [put(), put(), put()].map((write) => write.catch((error: unknown) => error))
    await settled()
    const fault = new StorageError({ reason: "connection", message: "gone", retryable: true })
    merged[0]!.done.reject(fault)
    expect(await Promise.all(outcomes)).toEqual([fault, fault, fault])
    expect(alone).toHaveLength(0)
  })

  it("runs the batches of a failed merged statement alone, one after another, each with its own outcome", async () => {
    const { merged, alone, put } = faked()
    const outcomes = [put(), put(), put()].map((write) =>
      write.then(
        () => "stored",
        (error: unknown) => (error as Error).message,
      ),
    )
    await settled()
    merged[0]!.done.reject(Object.assign(new Error("missing message"), { code: "23503" }))
    await settled()
    // The next runs only when the one before it has settled.
    expect(alone.map((call) => call.index)).toEqual([0])
    alone[0]!.done.resolve()
    await settled()
    alone[1]!.done.reject(new Error("its own error"))
    await settled()
    alone[2]!.done.resolve()
    expect(await Promise.all(outcomes)).toEqual(["stored", "its own error", "stored"])
  })

  it(`lets the batches behind a statement go without it once it has run ${STALL_MS} ms`, async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] })
    const { alone, put } = faked()
    void put()
    await vi.advanceTimersByTimeAsync(0)
    const behind = put()
    await vi.advanceTimersByTimeAsync(STALL_MS - 1)
    expect(alone).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(alone.map((call) => call.index)).toEqual([0, 1])
    alone[1]!.done.resolve()
    await behind
  })

  it("is drained once every batch has settled, the ones that waited included", async () => {
    const { groups, merged, alone, put } = faked()
    const writes = [put()]
    await settled()
    writes.push(put(), put())
    let drained = false
    const draining = groups.drained().then(() => {
      drained = true
    })
    alone[0]!.done.resolve()
    await settled()
    expect(drained).toBe(false)
    merged[0]!.done.resolve()
    await Promise.all([...writes, draining])
    expect(drained).toBe(true)
  })
})
