import { describe, expect, it } from "vitest"
import type { ToolPart, ToolState } from "../../src/message/part.js"
import {
  canonicalJSON,
  DOOM_LOOP_PERMISSION,
  DOOM_LOOP_THRESHOLD,
  doomLoopMessage,
  isDoomLoop,
} from "../../src/processor/doom-loop.js"

function toolPart(
  tool: string,
  input: Record<string, unknown>,
  status: ToolState["status"] = "completed",
  callID = `call_${Math.random()}`,
): ToolPart {
  const states: Record<ToolState["status"], ToolState> = {
    pending: { status: "pending", input, raw: JSON.stringify(input) },
    running: { status: "running", input, time: { start: 1 } },
    completed: {
      status: "completed",
      input,
      output: "ok",
      title: tool,
      metadata: {},
      time: { start: 1, end: 2 },
    },
    error: { status: "error", input, error: "failed", time: { start: 1, end: 2 } },
  }
  return {
    id: "prt_1",
    sessionID: "ses_1",
    messageID: "msg_1",
    type: "tool",
    callID,
    tool,
    state: states[status],
  }
}

const read = (path: string, extra: Record<string, unknown> = {}) => toolPart("read", { path, ...extra })

describe("isDoomLoop", () => {
  it("fires on the third identical call in a row", () => {
    expect(isDoomLoop([read("a.ts"), read("a.ts")], { tool: "read", input: { path: "a.ts" } })).toBe(true)
  })

  it("needs threshold − 1 earlier identical calls", () => {
    expect(isDoomLoop([], { tool: "read", input: { path: "a.ts" } })).toBe(false)
    expect(isDoomLoop([read("a.ts")], { tool: "read", input: { path: "a.ts" } })).toBe(false)
  })

  it("looks only at the most recent calls", () => {
    const recent = [read("a.ts"), read("a.ts"), read("b.ts"), read("a.ts")]
    expect(isDoomLoop(recent, { tool: "read", input: { path: "a.ts" } })).toBe(false)
    expect(
      isDoomLoop([read("b.ts"), ...recent, read("a.ts")], { tool: "read", input: { path: "a.ts" } }),
    ).toBe(true)
  })

  it("ignores key order at every depth but not array order", () => {
    const recent = [
      toolPart("edit", { path: "a.ts", change: { old: "x", new: "y" } }),
      toolPart("edit", { change: { new: "y", old: "x" }, path: "a.ts" }),
    ]
    expect(
      isDoomLoop(recent, { tool: "edit", input: { change: { old: "x", new: "y" }, path: "a.ts" } }),
    ).toBe(true)
    const lists = [toolPart("grep", { paths: ["a", "b"] }), toolPart("grep", { paths: ["a", "b"] })]
    expect(isDoomLoop(lists, { tool: "grep", input: { paths: ["b", "a"] } })).toBe(false)
  })

  it("needs the same tool and deeply equal input", () => {
    expect(isDoomLoop([read("a.ts"), read("a.ts")], { tool: "list", input: { path: "a.ts" } })).toBe(false)
    expect(
      isDoomLoop([read("a.ts", { limit: 10 }), read("a.ts", { limit: 10 })], {
        tool: "read",
        input: { path: "a.ts", limit: 20 },
      }),
    ).toBe(false)
    expect(
      isDoomLoop([read("a.ts"), read("a.ts")], { tool: "read", input: { path: "a.ts", limit: 1 } }),
    ).toBe(false)
  })

  it("counts running, completed and failed calls but not pending ones, whose input is not final", () => {
    const settled = [toolPart("read", { path: "a" }, "error"), toolPart("read", { path: "a" }, "running")]
    expect(isDoomLoop(settled, { tool: "read", input: { path: "a" } })).toBe(true)
    const streaming = [...settled, toolPart("read", { path: "a" }, "pending")]
    expect(isDoomLoop(streaming, { tool: "bash", input: { command: "ls" } })).toBe(false)
    expect(isDoomLoop(streaming, { tool: "read", input: { path: "a" } })).toBe(true)
  })

  it("skips the call's own part when the caller passes it", () => {
    const own = toolPart("read", { path: "a" }, "running", "call_own")
    const call = { tool: "read", input: { path: "a" }, callID: "call_own" }
    expect(isDoomLoop([read("a"), own], call)).toBe(false)
    expect(isDoomLoop([read("a"), read("a"), own], call)).toBe(true)
  })

  it("takes another threshold", () => {
    const call = { tool: "read", input: { path: "a" } }
    expect(isDoomLoop([read("a"), read("a")], call, 4)).toBe(false)
    expect(isDoomLoop([read("a"), read("a"), read("a")], call, 4)).toBe(true)
    expect(isDoomLoop([read("a")], call, 2)).toBe(true)
  })
})

describe("canonicalJSON", () => {
  it("sorts keys recursively, keeps arrays in order and drops undefined like JSON", () => {
    expect(canonicalJSON({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: undefined } })).toBe(
      '{"a":{"d":[3,{"y":2,"z":1}]},"b":1}',
    )
  })

  it("keeps a __proto__ key from parsed JSON as data", () => {
    const input = JSON.parse('{"__proto__":{"x":1},"a":2}') as Record<string, unknown>
    expect(canonicalJSON(input)).toBe('{"__proto__":{"x":1},"a":2}')
    expect(canonicalJSON(input)).not.toBe(canonicalJSON({ a: 2 }))
  })

  it("does not hang on cycles", () => {
    const cyclic: Record<string, unknown> = { a: 1 }
    cyclic.self = cyclic
    expect(canonicalJSON(cyclic)).toBe('{"a":1,"self":"[Circular]"}')
  })
})

describe("doom-loop constants", () => {
  it("names the permission and tells the model to stop repeating", () => {
    expect(DOOM_LOOP_PERMISSION).toBe("doom_loop")
    expect(DOOM_LOOP_THRESHOLD).toBe(3)
    const message = doomLoopMessage("read")
    expect(message).toContain("You called the read tool with the same input three times in a row.")
    expect(message).toContain("Stop repeating this call")
    expect(message).toContain("Try something else")
    expect(doomLoopMessage("read", 12)).toContain("12 times in a row")
  })
})
