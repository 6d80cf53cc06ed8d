import { describe, expect, it } from "vitest"
import type { MessageV2, Runtime, Snapshot } from "../../src/index.js"
import { createCoordinatorHub, createTestRuntime, say } from "../../src/testing/index.js"
import { fakeSnapshot } from "../snapshot/fake-snapshot.js"

/** A promise and how to settle it, for a step the test holds until it lets it go. */
function gate() {
  let open!: () => void
  const opened = new Promise<void>((resolve) => {
    open = resolve
  })
  return { opened, open }
}

/** Lets every promise chain the memory storage has under way run to its end. */
async function drain(): Promise<void> {
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve))
}

/** Resolves once `check` holds; fails after two seconds. */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 2_000
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out waiting")
    await new Promise((resolve) => setImmediate(resolve))
  }
}

/**
 * A Snapshot whose diffs wait while `hold` is set: the run's end (its turn summary) can be held
 * there. `entered` resolves when a diff starts waiting.
 */
function slowSnapshot() {
  const fake = fakeSnapshot()
  const state: { hold: ReturnType<typeof gate> | undefined; entered: ReturnType<typeof gate> } = {
    hold: undefined,
    entered: gate(),
  }
  const snapshot: Snapshot = {
    ...fake.snapshot,
    async diff(from, to) {
      const held = state.hold
      if (held) {
        state.entered.open()
        await held.opened
      }
      return fake.snapshot.diff(from, to)
    },
  }
  return { snapshot, state }
}

/** The user messages of the session that no assistant message answers. */
async function unanswered(runtime: Runtime, sessionID: string): Promise<string[]> {
  const messages = await runtime.session.messages(sessionID)
  const parents = new Set(
    messages.flatMap((message) => (message.info.role === "assistant" ? [message.info.parentID] : [])),
  )
  return messages.flatMap((message) =>
    message.info.role === "user" && !parents.has(message.info.id) ? [message.info.id] : [],
  )
}

function parentOf(message: MessageV2.WithParts): string | undefined {
  return message.info.role === "assistant" ? message.info.parentID : undefined
}

const text = (value: string) => [{ type: "text" as const, text: value }]

describe("a prompt sent as the previous turn ends", () => {
  it("is answered when it arrives while the run computes the turn's diff", async () => {
    const { snapshot, state } = slowSnapshot()
    const { runtime } = createTestRuntime({ snapshot, turns: [[say.text("one")], [say.text("two")]] })
    const session = await runtime.session.create({})
    state.hold = gate()
    const first = runtime.session.prompt({ sessionID: session.id, parts: text("first") })
    await state.entered.opened

    const second = runtime.session.prompt({ sessionID: session.id, parts: text("second") })
    await until(async () => (await runtime.session.messages(session.id)).length === 3)
    await drain()
    state.hold.open()
    state.hold = undefined
    const [a, b] = await Promise.all([first, second])

    expect(a.text).toBe("one")
    expect(parentOf(a)).toBe(a.user?.info.id)
    expect(b.text).toBe("two")
    expect(parentOf(b)).toBe(b.user?.info.id)
    expect(await unanswered(runtime, session.id)).toEqual([])
    expect(runtime.session.status(session.id)).toEqual({ type: "idle" })
  })

  it("is answered when it arrives while the last step finishes (it joins that run)", async () => {
    const { snapshot } = slowSnapshot()
    let sent: Promise<unknown> | undefined
    const secondID: { id?: string } = {}
    const { runtime } = createTestRuntime({
      snapshot,
      turns: [[say.text("one")], [say.text("two")]],
      hooks: {
        async "text.complete"(input) {
          if (sent) return
          sent = runtime.session.prompt({ sessionID: input.sessionID, parts: text("second") })
          await until(async () => (await runtime.session.messages(input.sessionID)).length === 3)
          secondID.id = (await runtime.session.messages(input.sessionID)).at(-1)?.info.id
          await drain()
        },
      },
    })
    const session = await runtime.session.create({})

    const a = await runtime.session.prompt({ sessionID: session.id, parts: text("first") })
    const b = (await sent) as Awaited<typeof a>

    expect(b.text).toBe("two")
    expect(parentOf(b)).toBe(secondID.id)
    // Joined: both callers get the run's final answer, which answers the newest message.
    expect(a.info.id).toBe(b.info.id)
    expect(await unanswered(runtime, session.id)).toEqual([])
  })

  it.each([
    ["the final answer is stored", "message.updated"],
    ["the session turns idle", "session.idle"],
  ] as const)("is answered when it is sent as soon as %s", async (_, trigger) => {
    const { snapshot } = slowSnapshot()
    const { runtime } = createTestRuntime({ snapshot, turns: [[say.text("one")], [say.text("two")]] })
    const session = await runtime.session.create({})
    let second: ReturnType<typeof runtime.session.prompt> | undefined
    const send = () => {
      second ??= runtime.session.prompt({ sessionID: session.id, parts: text("second") })
    }
    const stop =
      trigger === "session.idle"
        ? runtime.events.on("session.idle", send)
        : runtime.events.on("message.updated", ({ properties: { info } }) => {
            if (info.role === "assistant" && info.finish === "stop" && info.time.completed) send()
          })

    const a = await runtime.session.prompt({ sessionID: session.id, parts: text("first") })
    await until(() => second !== undefined)
    const b = await second!
    stop()

    expect(parentOf(b)).toBe(b.user?.info.id)
    expect(b.text).toBe("two")
    expect([a.user?.info.id, b.user?.info.id]).toContain(parentOf(a))
    expect(await unanswered(runtime, session.id)).toEqual([])
  })

  it("is answered as cancelled, calling no model, when a cancel comes while it waits for the run to end", async () => {
    const { snapshot, state } = slowSnapshot()
    const { runtime, model } = createTestRuntime({ snapshot, turns: [[say.text("one")], [say.text("two")]] })
    const session = await runtime.session.create({})
    state.hold = gate()
    const first = runtime.session.prompt({ sessionID: session.id, parts: text("first") })
    await state.entered.opened
    const second = runtime.session.prompt({ sessionID: session.id, parts: text("second") })
    await until(async () => (await runtime.session.messages(session.id)).length === 3)
    await drain()

    const cancelled = runtime.session.cancel(session.id)
    state.hold.open()
    state.hold = undefined
    await cancelled
    const [a, b] = await Promise.all([first, second])

    expect(a.text).toBe("one")
    expect(b.finish.reason).toBe("aborted")
    expect(parentOf(b)).toBe(b.user?.info.id)
    expect(model.calls).toHaveLength(1)
    expect(await unanswered(runtime, session.id)).toEqual([])
    await until(() => runtime.session.status(session.id).type === "idle")
  })

  it("is answered when it arrives while the run releases its lease (with a coordinator)", async () => {
    const hub = createCoordinatorHub().coordinator()
    const release: { hold?: ReturnType<typeof gate>; entered: ReturnType<typeof gate> } = { entered: gate() }
    const coordinator: typeof hub = {
      ...hub,
      async claim(sessionID, options) {
        const lease = await hub.claim(sessionID, options)
        if (!lease) return lease
        return {
          lost: lease.lost,
          async release() {
            const held = release.hold
            if (held) {
              release.entered.open()
              await held.opened
            }
            await lease.release()
          },
        }
      },
    }
    const { runtime } = createTestRuntime({ coordinator, turns: [[say.text("one")], [say.text("two")]] })
    const session = await runtime.session.create({})
    release.hold = gate()
    const first = runtime.session.prompt({ sessionID: session.id, parts: text("first") })
    await release.entered.opened

    const second = runtime.session.prompt({ sessionID: session.id, parts: text("second") })
    await until(async () => (await runtime.session.messages(session.id)).length === 3)
    await drain()
    release.hold.open()
    release.hold = undefined
    const [a, b] = await Promise.all([first, second])

    expect(parentOf(a)).toBe(a.user?.info.id)
    expect(b.text).toBe("two")
    expect(parentOf(b)).toBe(b.user?.info.id)
    expect(await unanswered(runtime, session.id)).toEqual([])
  })
})

describe("the turn's diff when a prompt is stored as the run ends", () => {
  it("goes on the user message the run answered, not on the prompt stored after its answer", async () => {
    const { snapshot } = slowSnapshot()
    const { runtime } = createTestRuntime({ snapshot, turns: [[say.text("one")], [say.text("two")]] })
    const session = await runtime.session.create({})
    let second: ReturnType<typeof runtime.session.prompt> | undefined
    const stop = runtime.events.on("message.updated", ({ properties: { info } }) => {
      if (info.role === "assistant" && info.finish === "stop" && info.time.completed)
        second ??= runtime.session.prompt({ sessionID: session.id, parts: text("second") })
    })

    const a = await runtime.session.prompt({ sessionID: session.id, parts: text("first") })
    await until(() => second !== undefined)
    const b = await second!
    stop()

    const users = (await runtime.session.messages(session.id)).filter(
      (message) => message.info.role === "user",
    )
    expect(users.map((message) => message.info.id)).toEqual([a.user.info.id, b.user.info.id])
    for (const user of users) expect(user.info.role === "user" && user.info.summary).toEqual({ diffs: [] })
  })
})
