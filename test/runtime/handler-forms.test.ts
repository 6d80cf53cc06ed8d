import { describe, expect, it } from "vitest"
import { Permission, type RuntimeOptions } from "../../src/index.js"
import { createTestRuntime, say } from "../../src/testing/index.js"

// The handlers here are written inline without `as const`, as people write them: this file
// compiling is half of what it checks (test/consumer/handler-forms.ts checks every form).

async function askWith(onPermission: NonNullable<RuntimeOptions["onPermission"]>) {
  const { runtime } = createTestRuntime({ onPermission })
  const session = await runtime.session.create()
  try {
    await runtime.permission.ask({ sessionID: session.id, permission: "refund", patterns: ["order-42"] })
    return "allowed"
  } catch (error) {
    if (!Permission.RejectedError.isInstance(error) && !Permission.CorrectedError.isInstance(error))
      throw error
    return error.message
  } finally {
    await runtime.close()
  }
}

describe("handlers written with literal answers", () => {
  it("take a sync or async reply, or a reply with a message", async () => {
    expect(await askWith(() => "once")).toBe("allowed")
    expect(await askWith(async () => "always")).toBe("allowed")
    expect(await askWith(async () => "reject")).toMatch(/rejected/)
    expect(await askWith(async () => ({ reply: "reject", message: "Refund half" }))).toContain("Refund half")
  })

  it("reject the request when an async handler's string is no reply", async () => {
    // Typed as any string (TypeScript widens an async literal), so it is checked when it arrives.
    expect(await askWith(async () => "sure")).toContain(
      'The permission handler failed: Invalid onPermission answer: (root): expected "once", "always", "reject"',
    )
  })

  it("a hook whose concise body returns a value is run, its value ignored", async () => {
    const { runtime, model } = createTestRuntime({
      turns: [[say.text("ok")]],
      hooks: { "chat.system": (_input, output) => output.system.push("Answer in British English.") },
    })
    const session = await runtime.session.create()
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "hi" }] })
    expect(JSON.stringify(model.calls[0]?.prompt)).toContain("Answer in British English.")
    await runtime.close()
  })
})
