import { describe, expect, it } from "vitest"
import { Agent } from "../../src/agent/index.js"
import { Permission } from "../../src/permission/index.js"

const builtins = Agent.builtins()
// The built-ins with the coding agents over them, as the coding preset gives them.
const agents = Agent.resolveAgents(Agent.codingAgents())
const action = (agent: string, permission: string, pattern = "*") =>
  Permission.evaluate(permission, pattern, agents[agent]!.permission).action

describe("Agent.builtins", () => {
  it("has the five built-in agents, each valid and named after its key", () => {
    expect(Object.keys(builtins).sort()).toEqual(
      ["build", "compaction", "general", "summary", "title"].sort(),
    )
    for (const [name, agent] of Object.entries(builtins)) {
      expect(Agent.Info.parse(agent)).toEqual(agent)
      expect(agent.name).toBe(name)
      expect(agent.prompt?.length).toBeGreaterThan(100)
    }
    expect(builtins.build?.mode).toBe("primary")
    expect(builtins.general?.mode).toBe("subagent")
  })

  it("assume no codebase: a neutral prompt, and no rules for the coding tools' shell or edits", () => {
    expect(builtins.build!.prompt).toBe(Agent.Prompt.DEFAULT)
    for (const agent of [builtins.build!, builtins.general!]) {
      expect(agent.prompt).not.toMatch(/coding|codebase|project/i)
      const named = new Set(agent.permission.map((rule) => rule.permission))
      for (const tool of ["bash", "edit", "webfetch", "websearch", "glob", "grep", "list"])
        expect(named.has(tool), `${agent.name} names ${tool}`).toBe(false)
    }
  })

  it("builds fresh objects on each call, so changing one never leaks into the next", () => {
    const first = Agent.builtins()
    first.build!.permission.push({ permission: "bash", pattern: "*", action: "deny" })
    expect(Permission.evaluate("bash", "ls", Agent.builtins().build!.permission).action).toBe("allow")
  })

  describe("build", () => {
    it("allows everything except that doom_loop and external_directory ask", () => {
      expect(action("build", "bash", "rm -rf build")).toBe("allow")
      expect(action("build", "edit", "src/a.ts")).toBe("allow")
      expect(action("build", "some_host_tool")).toBe("allow")
      expect(action("build", "doom_loop", "read")).toBe("ask")
      expect(action("build", "external_directory", "/etc/*")).toBe("ask")
    })

    it("asks before reading .env files but reads .env.example", () => {
      expect(action("build", "read", "src/index.ts")).toBe("allow")
      expect(action("build", "read", ".env")).toBe("ask")
      expect(action("build", "read", "config/prod.env")).toBe("ask")
      expect(action("build", "read", ".env.local")).toBe("ask")
      expect(action("build", "read", ".env.example")).toBe("allow")
    })

    it("lets the model ask the user questions", () => {
      expect(action("build", "question")).toBe("allow")
    })
  })

  describe("the coding agents (Agent.codingAgents)", () => {
    it("add plan and explore, and give build the coding prompt with the built-in rules", () => {
      expect(agents.build).toMatchObject({ mode: "primary", prompt: Agent.Prompt.BUILD })
      expect(agents.build!.permission).toEqual(builtins.build!.permission)
      expect(agents.plan?.mode).toBe("primary")
      expect(agents.explore?.mode).toBe("subagent")
      for (const agent of Object.values(agents)) expect(Agent.Info.parse(agent)).toEqual(agent)
    })
  })

  describe("plan", () => {
    it("denies every edit, so the edit tools are disabled", () => {
      expect(action("plan", "edit", "src/a.ts")).toBe("deny")
      expect(action("plan", "edit", "PLAN.md")).toBe("deny")
      expect(Permission.disabled(["edit", "write", "read"], agents.plan!.permission)).toEqual(
        new Set(["edit", "write"]),
      )
    })

    it("asks before shell commands, reads like build and may ask questions", () => {
      expect(action("plan", "bash", "ls")).toBe("ask")
      expect(action("plan", "read", "src/a.ts")).toBe("allow")
      expect(action("plan", "read", ".env")).toBe("ask")
      expect(action("plan", "question")).toBe("allow")
      expect(action("plan", "doom_loop")).toBe("ask")
    })
  })

  describe("sub-agents", () => {
    it("never ask the user, keep no to-do list and start no sub-agents", () => {
      for (const name of ["general", "explore"]) {
        for (const permission of ["question", "todowrite", "todoread", "task"])
          expect(action(name, permission), `${name} ${permission}`).toBe("deny")
        expect(Permission.disabled(["question", "task"], agents[name]!.permission)).toEqual(
          new Set(["question", "task"]),
        )
      }
    })

    it("lets general work like build otherwise", () => {
      expect(action("general", "bash", "npm test")).toBe("allow")
      expect(action("general", "edit", "src/a.ts")).toBe("allow")
      expect(action("general", "read", ".env")).toBe("ask")
      expect(action("general", "doom_loop")).toBe("ask")
    })

    it("keeps explore read-only: search tools allowed, edits and unknown tools denied", () => {
      for (const tool of ["read", "glob", "grep", "list", "webfetch", "websearch"])
        expect(action("explore", tool, "src/a.ts"), tool).toBe("allow")
      expect(action("explore", "edit", "src/a.ts")).toBe("deny")
      expect(action("explore", "some_host_tool")).toBe("deny")
      expect(action("explore", "bash", "git log")).toBe("ask")
    })

    it("keeps the asks that explore's deny-all would otherwise swallow", () => {
      expect(action("explore", "read", ".env")).toBe("ask")
      expect(action("explore", "read", ".env.example")).toBe("allow")
      expect(action("explore", "doom_loop", "grep")).toBe("ask")
      expect(action("explore", "external_directory", "/tmp/*")).toBe("ask")
    })
  })

  describe("hidden agents", () => {
    it("deny every tool and are primary but hidden", () => {
      for (const name of ["compaction", "title", "summary"]) {
        const agent = agents[name]!
        expect(agent).toMatchObject({ mode: "primary", hidden: true })
        for (const permission of ["read", "bash", "edit", "question", "doom_loop", "anything"])
          expect(action(name, permission, "x"), `${name} ${permission}`).toBe("deny")
        expect(Permission.disabled(["read", "bash", "question"], agent.permission).size).toBe(3)
      }
    })
  })
})
