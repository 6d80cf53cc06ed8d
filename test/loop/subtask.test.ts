import { describe, expect, it } from "vitest"
import { pendingSubtasks } from "../../src/loop/subtask.js"
import type { WithParts } from "../../src/message/info.js"
import type { SubtaskPart } from "../../src/message/part.js"
import { historyBuilder } from "../compaction/history.js"

function withSubtasks(h: ReturnType<typeof historyBuilder>, count: number) {
  const user = h.user("run these")
  const subtasks = Array.from(
    { length: count },
    (_, index): SubtaskPart => ({
      id: `prt_subtask${index}`,
      sessionID: h.sessionID,
      messageID: user.info.id,
      type: "subtask",
      prompt: `task ${index}`,
      description: `task ${index}`,
      agent: "general",
    }),
  )
  user.parts.push(...subtasks)
  return { user, subtasks }
}

/** The assistant message that ran `subtask`: its `task` call under the part's own ID. */
function ran(h: ReturnType<typeof historyBuilder>, subtask: SubtaskPart): WithParts {
  const message = h.assistant("", { finish: "tool-calls", tool: { name: "task", output: "report" } })
  const tool = message.parts.find((part) => part.type === "tool")!
  if (tool.type === "tool") tool.callID = subtask.id
  return message
}

describe("pendingSubtasks", () => {
  it("has nothing to run for a user message without subtasks", () => {
    const h = historyBuilder()
    const user = h.user("hello")
    h.assistant("hi")
    expect(pendingSubtasks(h.messages, user)).toEqual([])
  })

  it("leaves out the subtasks whose call the turn already holds, however many steps followed", () => {
    const h = historyBuilder()
    h.user("earlier")
    h.assistant("earlier answer")
    const { user, subtasks } = withSubtasks(h, 3)
    ran(h, subtasks[1]!)
    for (let step = 0; step < 50; step++)
      h.assistant(`step ${step}`, { finish: "tool-calls", tool: { output: "x" } })
    expect(pendingSubtasks(h.messages, user)).toEqual([subtasks[0], subtasks[2]])
    ran(h, subtasks[0]!)
    ran(h, subtasks[2]!)
    expect(pendingSubtasks(h.messages, user)).toEqual([])
  })

  it("counts only calls of the turn's own answers", () => {
    const h = historyBuilder()
    const { user: first, subtasks } = withSubtasks(h, 1)
    ran(h, subtasks[0]!)
    const { user: second } = withSubtasks(h, 0)
    second.parts.push({ ...subtasks[0]!, messageID: second.info.id })
    expect(pendingSubtasks(h.messages, first)).toEqual([])
    expect(pendingSubtasks(h.messages, second)).toEqual([{ ...subtasks[0]!, messageID: second.info.id }])
  })
})
