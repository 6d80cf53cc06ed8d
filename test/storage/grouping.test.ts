import { afterEach, describe, expect, it, vi } from "vitest"
import { createGrouping, type Pending, sendGroup } from "../../src/storage/grouping.js"
import { StorageError } from "../../src/storage/storage-error.js"

type Call = Pending<string> & { name: string }

/** A call named `name` and the promise of its answer. */
function call(name: string): { call: Call; answer: Promise<string> } {
  let settlers!: Pending<string>
  const answer = new Promise<string>((resolve, reject) => {
    settlers = { resolve, reject }
  })
  return { call: { name, ...settlers }, answer }
}

const outcomes = (answers: Promise<string>[]) =>
  Promise.all(
    answers.map((answer) => answer.catch((error: unknown) => `failed: ${(error as Error).message}`)),
  )

describe("sendGroup", () => {
  it("answers each call of a merged group from the group's outcome", async () => {
    const made = ["a", "b"].map(call)
    await sendGroup(
      made.map((each) => each.call),
      {
        merged: async (calls) => calls.map((each) => each.name.toUpperCase()).join(""),
        alone: async () => expect.fail("no call goes alone"),
        answer: (each, outcome) => `${each.name} in ${outcome}`,
      },
    )
    expect(await outcomes(made.map((each) => each.answer))).toEqual(["a in AB", "b in AB"])
  })

  it("sends a group of one alone", async () => {
    const made = call("a")
    await sendGroup([made.call], {
      merged: async () => expect.fail("a group of one is not merged"),
      alone: async (each) => `${each.name} alone`,
      answer: () => "",
    })
    expect(await made.answer).toBe("a alone")
  })

  it("reruns each call alone, in order, when the merged call fails on a call's account", async () => {
    const made = ["a", "bad", "c"].map(call)
    const order: string[] = []
    await sendGroup(
      made.map((each) => each.call),
      {
        merged: async () => {
          throw new Error("a constraint")
        },
        alone: async (each) => {
          order.push(each.name)
          if (each.name === "bad") throw new Error("its own error")
          return `${each.name} alone`
        },
        answer: () => "",
      },
    )
    expect(order).toEqual(["a", "bad", "c"])
    expect(await outcomes(made.map((each) => each.answer))).toEqual([
      "a alone",
      "failed: its own error",
      "c alone",
    ])
  })

  it("fails every call at once on a fault, running none alone", async () => {
    const made = ["a", "b"].map(call)
    const fault = new StorageError({ reason: "busy", message: "locked", retryable: true })
    await sendGroup(
      made.map((each) => each.call),
      {
        merged: async () => {
          throw fault
        },
        alone: async () => expect.fail("no call goes alone"),
        answer: () => "",
      },
    )
    expect(await outcomes(made.map((each) => each.answer))).toEqual(["failed: locked", "failed: locked"])
  })
})

describe("createGrouping", () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  /** A grouping that records the names of each group it sends and answers its calls at once. */
  function recording(options: Omit<Parameters<typeof createGrouping<Call>>[0], "send">) {
    const groups: string[][] = []
    const grouping = createGrouping<Call>({
      ...options,
      send: async (group) => {
        groups.push(group.map((each) => each.name))
        for (const each of group) each.resolve(each.name)
      },
    })
    const add = (name: string) => {
      const made = call(name)
      grouping.add(made.call)
      return made.answer
    }
    return { grouping, groups, add }
  }

  it("sends a caller alone after its microtasks, and calls that came several at a time at the end of the turn", async () => {
    const { groups, add } = recording({ flush: { when: "turn" } })
    await Promise.all([add("a"), add("b")])
    expect(groups).toEqual([["a", "b"]])
    // The last group had two: the next waits for the end of the turn, taking in a later call.
    const first = add("c")
    await Promise.resolve()
    const second = add("d")
    await Promise.all([first, second])
    expect(groups).toEqual([
      ["a", "b"],
      ["c", "d"],
    ])
    // That one had two as well: a caller alone waits for the end of the turn once more, then no longer.
    await add("e")
    let turnEnded = false
    setImmediate(() => {
      turnEnded = true
    })
    await add("f")
    expect(turnEnded).toBe(false)
  })

  it("takes as many calls as `take` says into each group", async () => {
    const { groups, add } = recording({
      flush: { when: "turn" },
      take: (waiting) => Math.min(2, waiting.length),
    })
    await Promise.all(["a", "b", "c"].map(add))
    expect(groups).toEqual([["a", "b"], ["c"]])
  })

  it("spaces its groups: the next goes `everyMs` after the one before went out", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "setImmediate", "performance"] })
    const { grouping, groups, add } = recording({ flush: { when: "spaced", everyMs: 10 } })
    const first = add("a")
    await vi.advanceTimersByTimeAsync(0)
    await first
    void add("b")
    await vi.advanceTimersByTimeAsync(5)
    void add("c")
    await vi.advanceTimersByTimeAsync(4)
    expect(groups).toEqual([["a"]])
    await vi.advanceTimersByTimeAsync(1)
    await grouping.drained()
    expect(groups).toEqual([["a"], ["b", "c"]])
  })

  it("fails the calls of a group whose send rejects without settling them", async () => {
    const grouping = createGrouping<Call>({
      flush: { when: "turn" },
      send: async () => {
        throw new Error("the send broke")
      },
    })
    const made = call("a")
    grouping.add(made.call)
    await expect(made.answer).rejects.toThrow("the send broke")
    await grouping.drained()
  })
})
