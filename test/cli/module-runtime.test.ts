import { describe, expect, it } from "vitest"
import { ModuleLoadError } from "../../src/cli/errors.js"
import { runtimeOf } from "../../src/cli/module-runtime.js"
import { InvalidInputError } from "../../src/index.js"
import { createTestRuntime } from "../../src/testing/index.js"

describe("runtimeOf", () => {
  it("serves a runtime as it is", async () => {
    const { runtime } = createTestRuntime()
    expect(runtimeOf(runtime, "agent.js")).toBe(runtime)
    await runtime.close()
  })

  it("makes a runtime of options, with the question tool unless they turn it off", async () => {
    const asking = runtimeOf({}, "agent.js")
    expect(asking.tools.get("question")).toBeDefined()
    const silent = runtimeOf({ question: false }, "agent.js")
    expect(silent.tools.get("question")).toBeUndefined()
    await Promise.all([asking.close(), silent.close()])
  })

  it("refuses what is neither, naming the module", () => {
    for (const exported of [undefined, 42, "options", () => ({})])
      expect(() => runtimeOf(exported, "agent.js")).toThrow(ModuleLoadError)
    expect(() => runtimeOf(undefined, "agent.js")).toThrow(/agent\.js has no default export/)
  })

  it("lets createRuntime's own check name a wrong option", () => {
    expect(() => runtimeOf({ modle: {} }, "agent.js")).toThrow(InvalidInputError)
  })
})
