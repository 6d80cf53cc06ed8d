/**
 * Unit tests of the support agent (agent.ts) with a scripted model: no network, no keys. Each
 * test scripts what the model says, runs a turn, and checks how the turn ended, what the tools
 * did and what the model was told. `npx vitest run examples/support/agent.test.ts`
 */
import { createTestRuntime, expectAnswer, turnText } from "agentloop-sdk/testing"
import { describe, expect, it } from "vitest"
import { supportAgent } from "./agent.js"

const customer = [{ type: "text" as const, text: "Please refund order A1." }]

describe("the support agent", () => {
  it("looks the order up, refunds it once approved, and says so", async () => {
    const { runtime, verify } = createTestRuntime({
      ...supportAgent,
      onPermission: () => "once",
      turns: (say) => [
        [say.toolCall("lookup_order", { orderID: "A1" })],
        [say.toolCall("refund", { orderID: "A1" })],
        [say.text("Order A1 is refunded: $42.00 goes back to your card.")],
      ],
    })
    const { id: sessionID } = await runtime.session.create()
    const turn = await runtime.session.prompt({ sessionID, parts: customer })

    expect(turnText(turn)).toBe("Order A1 is refunded: $42.00 goes back to your card.")
    expect(turn.finish).toEqual({ reason: "stop" })
    expect(turn.toolCalls.map((call) => [call.tool, call.state])).toMatchObject([
      [
        "lookup_order",
        { status: "completed", output: '{"item":"Desk lamp","total":42,"status":"delivered"}' },
      ],
      ["refund", { status: "completed", output: '{"orderID":"A1","refunded":42}' }],
    ])
    verify() // every scripted turn was played
    await runtime.close()
  })

  it("ends the turn when the supervisor refuses the refund", async () => {
    const { runtime, verify } = createTestRuntime({
      ...supportAgent,
      turns: (say) => [
        [say.toolCall("lookup_order", { orderID: "A1" })],
        [say.toolCall("refund", { orderID: "A1" })],
      ],
    })
    // The app's approval route answers with runtime.permission.reply, as the supervisor does here.
    runtime.events.on("permission.asked", ({ properties: request }) => {
      void runtime.permission.reply({ requestID: request.id, reply: "reject" })
    })
    const { id: sessionID } = await runtime.session.create()
    const turn = await runtime.session.prompt({ sessionID, parts: customer })

    expect(turn.finish).toMatchObject({ reason: "rejected", tool: "refund", by: "user" })
    expect(turn.toolCalls[1]?.state).toMatchObject({ status: "error", refusedBy: "user" })
    expect(() => expectAnswer(turn)).toThrow('the turn ended with finish "rejected"')
    verify()
    await runtime.close()
  })

  it("apologises for a refused refund when the app lets the turn continue", async () => {
    const { runtime, model, verify } = createTestRuntime({
      ...supportAgent,
      rejection: "continue",
      onPermission: () => "reject",
      turns: (say) => [
        [say.toolCall("lookup_order", { orderID: "A1" })],
        [say.toolCall("refund", { orderID: "A1" })],
        [say.text("Sorry, I may not refund order A1 myself; a colleague will get back to you.")],
      ],
    })
    const { id: sessionID } = await runtime.session.create()
    const turn = await runtime.session.prompt({ sessionID, parts: customer })

    expect(expectAnswer(turn).text).toMatch(/^Sorry/)
    expect(turn.toolCalls[1]?.state).toMatchObject({ status: "error", refusedBy: "host" })
    expect(JSON.stringify(model.calls[2]?.prompt)).toContain("The application rejected permission")
    verify()
    await runtime.close()
  })
})
