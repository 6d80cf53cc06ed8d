import { describe, expect, it } from "vitest"
import { Agent } from "../../src/agent/index.js"

const agents = Agent.resolveAgents(Agent.codingAgents())
const environment = { directory: "/work/project", platform: "linux", date: new Date(2026, 0, 5, 12, 0) }

describe("Agent.systemPrompt", () => {
  it("puts the agent prompt, the environment, the instructions and the user's system in that order", () => {
    const blocks = Agent.systemPrompt({
      agent: agents.plan!,
      environment: { ...environment, git: true },
      instructions: ["Use pnpm.", "Answer in French."],
      user: "Focus on src/.",
    })
    expect(blocks).toEqual([
      agents.plan!.prompt,
      [
        "Here is information about the environment you are running in:",
        "<env>",
        "Working directory: /work/project",
        "Is the directory a git repository: yes",
        "Platform: linux",
        "Today's date: 2026-01-05",
        "</env>",
      ].join("\n"),
      "Use pnpm.",
      "Answer in French.",
      "Focus on src/.",
    ])
  })

  it("uses the default prompt for an agent without one", () => {
    const agent = Agent.resolveAgents({ custom: {} }).custom!
    expect(Agent.systemPrompt({ agent, environment })[0]).toBe(Agent.Prompt.DEFAULT)
  })

  it("leaves the environment block out when no environment is given", () => {
    const blocks = Agent.systemPrompt({ agent: agents.build!, instructions: ["Be brief."] })
    expect(blocks).toEqual([Agent.Prompt.BUILD, "Be brief."])
  })

  it("leaves out empty blocks", () => {
    const blocks = Agent.systemPrompt({
      agent: agents.build!,
      environment,
      instructions: ["", "  "],
      user: "",
    })
    expect(blocks).toHaveLength(2)
  })

  it("gives the plan agent the build prompt plus read-only planning rules", () => {
    expect(agents.plan!.prompt!.startsWith(Agent.Prompt.BUILD)).toBe(true)
    expect(agents.plan!.prompt).toContain("Plan mode")
  })
})

describe("Agent.environmentBlock", () => {
  it("says whether the directory is a git repository only when that is known", () => {
    expect(Agent.environmentBlock({ ...environment, git: false })).toContain(
      "Is the directory a git repository: no",
    )
    expect(Agent.environmentBlock(environment)).not.toContain("git repository")
  })

  it("shows only the fields given, and nothing without any", () => {
    const date = new Date(2026, 0, 5, 12, 0)
    expect(Agent.environmentBlock({ date })).toBe(
      "Here is information about the environment you are running in:\n<env>\nToday's date: 2026-01-05\n</env>",
    )
    expect(Agent.environmentBlock({})).toBe("")
  })

  it("shows the platform as given", () => {
    expect(Agent.environmentBlock({ ...environment, platform: "win32" })).toContain("Platform: win32")
  })
})

describe("Agent.formatDate", () => {
  it("writes the local calendar day as YYYY-MM-DD, zero-padded", () => {
    expect(Agent.formatDate(new Date(2026, 2, 9, 0, 0, 1))).toBe("2026-03-09")
    expect(Agent.formatDate(new Date(2026, 11, 31, 23, 59, 59))).toBe("2026-12-31")
  })
})

describe("Agent prompts", () => {
  it("ask the title agent for a bare one-line title of at most 50 characters in the user's language", () => {
    expect(agents.title!.prompt).toContain("at most 50 characters")
    expect(agents.title!.prompt).toContain("same language")
    expect(agents.title!.prompt).toContain("No quotes")
  })

  it("ask for every section a continuation needs when compacting", () => {
    for (const section of [
      "Goal",
      "Constraints",
      "Progress",
      "Decisions",
      "Next steps",
      "Critical context",
      "Relevant files",
    ])
      expect(agents.compaction!.prompt, section).toContain(`## ${section}`)
  })

  it("tell the build agent to ask with the question tool when stuck", () => {
    expect(agents.build!.prompt).toContain("question tool")
  })
})
