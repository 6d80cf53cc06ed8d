import { describe, expect, it } from "vitest"
import { Agent } from "../../src/agent/index.js"
import { InvalidInputError } from "../../src/error/index.js"
import { Permission } from "../../src/permission/index.js"

function thrown(run: () => unknown): unknown {
  try {
    run()
  } catch (error) {
    return error
  }
  throw new Error("expected a throw")
}

describe("Agent.resolveAgents", () => {
  it("returns the built-ins when there are no overrides", () => {
    expect(Agent.resolveAgents()).toEqual(Agent.builtins())
  })

  it("replaces the fields an override gives and keeps the rest", () => {
    const agents = Agent.resolveAgents({
      build: { prompt: "Be brief.", temperature: 0.2, model: { providerID: "p", modelID: "m" }, steps: 5 },
    })
    const builtin = Agent.builtins().build!
    expect(agents.build).toEqual({
      ...builtin,
      prompt: "Be brief.",
      temperature: 0.2,
      model: { providerID: "p", modelID: "m" },
      steps: 5,
    })
  })

  it("appends override rules after the built-in's, so they win", () => {
    const agents = Agent.resolveAgents({
      build: {
        permission: Permission.fromConfig({ bash: { "*": "ask", "git *": "allow" }, question: "deny" }),
      },
    })
    const rules = agents.build!.permission
    expect(rules.slice(0, Agent.builtins().build!.permission.length)).toEqual(
      Agent.builtins().build!.permission,
    )
    expect(Permission.evaluate("bash", "rm -rf /", rules).action).toBe("ask")
    expect(Permission.evaluate("bash", "git status", rules).action).toBe("allow")
    expect(Permission.evaluate("question", "*", rules).action).toBe("deny")
    expect(Permission.evaluate("edit", "a.ts", rules).action).toBe("allow")
  })

  it("lets an override allow edits in the coding preset's plan for some paths only", () => {
    const coding = Agent.codingAgents()
    const allowPlans = { permission: "edit", pattern: "plans/*", action: "allow" } as const
    const agents = Agent.resolveAgents({
      ...coding,
      plan: { ...coding.plan, permission: [...coding.plan!.permission, allowPlans] },
    })
    expect(Permission.evaluate("edit", "plans/next.md", agents.plan!.permission).action).toBe("allow")
    expect(Permission.evaluate("edit", "src/a.ts", agents.plan!.permission).action).toBe("deny")
  })

  it("treats an undefined field as not given", () => {
    const agents = Agent.resolveAgents({ build: { prompt: undefined, description: "Mine" } })
    expect(agents.build?.prompt).toBe(Agent.builtins().build!.prompt)
    expect(agents.build?.description).toBe("Mine")
  })

  it("adds a new agent with mode all and no rules of its own", () => {
    const agents = Agent.resolveAgents({
      reviewer: { prompt: "Review the diff.", description: "Reviews code" },
    })
    expect(agents.reviewer).toEqual({
      name: "reviewer",
      mode: "all",
      prompt: "Review the diff.",
      description: "Reviews code",
      permission: [],
    })
    expect(Permission.evaluate("edit", "a.ts", agents.reviewer!.permission).action).toBe("ask")
    expect(agents.build).toEqual(Agent.builtins().build)
  })

  it("rejects bad fields with an error naming agents.<name>.<field>", () => {
    const error = thrown(() =>
      Agent.resolveAgents({
        plan: { mode: "sometimes" as "all", steps: 0 },
        extra: { permission: [{ permission: "bash", pattern: "*", action: "maybe" as "ask" }] },
      }),
    )
    expect(InvalidInputError.isInstance(error)).toBe(true)
    const paths = (error as InvalidInputError).data.issues.map((issue) => issue.path)
    expect(paths).toEqual(
      expect.arrayContaining(["agents.plan.mode", "agents.plan.steps", "agents.extra.permission.0.action"]),
    )
  })

  it("rejects unknown fields and a name that differs from its key", () => {
    const unknown = thrown(() => Agent.resolveAgents({ build: { permissions: [] } as never }))
    expect((unknown as InvalidInputError).message).toContain("agents.build")
    expect((unknown as InvalidInputError).message).toContain("permissions")
    const renamed = thrown(() => Agent.resolveAgents({ build: { name: "other" } }))
    expect((renamed as InvalidInputError).data.issues).toEqual([
      { path: "agents.build.name", message: 'Must equal the key "build"' },
    ])
  })
})

describe("Agent.getAgent", () => {
  it("finds an agent by name, and names the known ones when it is absent", () => {
    const agents = Agent.resolveAgents()
    expect(Agent.getAgent(agents, "general")).toBe(agents.general)
    const error = thrown(() => Agent.getAgent(agents, "constructor"))
    expect(Agent.UnknownAgentError.isInstance(error)).toBe(true)
    expect((error as Agent.UnknownAgentError).data.known).toContain("general")
  })
})

describe("Agent.defaultAgent", () => {
  const agents = Agent.resolveAgents({ reviewer: { mode: "primary" }, helper: { mode: "subagent" } })

  it("is build unless named", () => {
    expect(Agent.defaultAgent(agents)).toBe(agents.build)
    expect(Agent.defaultAgent(agents, "reviewer")).toBe(agents.reviewer)
  })

  it.each([
    ["missing", "unknown", "does not exist"],
    ["general", "subagent", "is a sub-agent"],
    ["helper", "subagent", "is a sub-agent"],
    ["title", "hidden", "is hidden"],
  ] as const)("rejects %s (%s) and lists the primary agents", (name, reason, text) => {
    const error = thrown(() => Agent.defaultAgent(agents, name))
    expect(Agent.InvalidDefaultAgentError.isInstance(error)).toBe(true)
    const data = (error as Agent.InvalidDefaultAgentError).data
    expect(data).toMatchObject({ name, reason })
    expect(data.primary).toEqual(["build", "reviewer"])
    expect(data.message).toBe(`Default agent "${name}" ${text}. Primary agents: build, reviewer`)
  })
})
