import type { Runtime } from "../../src/index.js"
import { unrepairedRows } from "./stored-checks.js"

/**
 * Check e: answer what still waits and let that run finish, then a new prompt gets a good answer,
 * and nothing is left unfinished afterwards. A call approved after the restart must have run.
 */
export async function continues(runtime: Runtime, sessionID: string): Promise<string[]> {
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
export async function loopContinues(runtime: Runtime, sessionID: string): Promise<string[]> {
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
