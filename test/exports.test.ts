import { describe, expect, it } from "vitest"
import * as agentloop from "../src/index.js"

describe("the package's public surface", () => {
  it("exports every namespace and entry point the design promises", () => {
    for (const name of [
      "Agent",
      "Compaction",
      "Identifier",
      "MessageV2",
      "Permission",
      "Provider",
      "Question",
      "Session",
      "SessionProcessor",
      "Tool",
      "createProvider",
      "createRuntime",
      "MemoryStorage",
      "NotFoundError",
      "InvalidInputError",
    ])
      expect(agentloop, name).toHaveProperty(name)
  })

  it("exposes compaction through its namespace, MessageV2 and the runtime", () => {
    expect(typeof agentloop.Compaction.isOverflow).toBe("function")
    expect(typeof agentloop.Compaction.usable).toBe("function")
    expect(typeof agentloop.Compaction.selectPrune).toBe("function")
    expect(typeof agentloop.MessageV2.filterCompacted).toBe("function")
    expect(typeof agentloop.Agent.Prompt.COMPACTION_CONTINUE).toBe("string")
    const runtime = agentloop.createRuntime()
    expect(typeof runtime.session.compact).toBe("function")
  })
})
