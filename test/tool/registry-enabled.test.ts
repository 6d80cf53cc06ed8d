import { describe, expect, it } from "vitest"
import { z } from "zod"
import { type Permission, Tool } from "../../src/index.js"
import { createToolRegistry } from "../../src/tool/registry.js"

const noop = (id: string) =>
  Tool.define(id, {
    description: id,
    parameters: z.object({}),
    execute: async () => ({ title: id, output: "", metadata: {} }),
  })

const ids = (tools: Tool.Info[]) => tools.map((tool) => tool.id)
const deny = (permission: string, pattern = "*"): Permission.Rule => ({ permission, pattern, action: "deny" })

/** `enabled` answers from the rules and switches as they are at each call, however they were changed. */
describe("ToolRegistry.enabled", () => {
  const registry = () => createToolRegistry([noop("bash"), noop("edit"), noop("write"), noop("read")])

  it("follows rules and switches changed in place between calls", () => {
    const tools = registry()
    const ruleset: Permission.Ruleset = []
    const switches: Record<string, boolean> = {}
    expect(ids(tools.enabled({ ruleset, switches }))).toEqual(["bash", "edit", "write", "read"])
    ruleset.push(deny("edit"))
    expect(ids(tools.enabled({ ruleset, switches }))).toEqual(["bash", "read"])
    ruleset[0] = { ...deny("edit"), action: "allow" }
    expect(ids(tools.enabled({ ruleset, switches }))).toEqual(["bash", "edit", "write", "read"])
    ruleset[0].pattern = "src/*"
    ruleset[0].action = "deny"
    expect(ids(tools.enabled({ ruleset, switches }))).toEqual(["bash", "edit", "write", "read"])
    ruleset[0].pattern = "*"
    expect(ids(tools.enabled({ ruleset, switches }))).toEqual(["bash", "read"])
    switches.bash = false
    expect(ids(tools.enabled({ ruleset, switches }))).toEqual(["read"])
    switches.bash = true
    expect(ids(tools.enabled({ ruleset, switches }))).toEqual(["bash", "read"])
    delete switches.bash
    switches.read = false
    expect(ids(tools.enabled({ ruleset, switches }))).toEqual(["bash"])
    expect(ids(tools.enabled({ ruleset }))).toEqual(["bash", "read"])
    ruleset.length = 0
    expect(ids(tools.enabled({ ruleset }))).toEqual(["bash", "edit", "write", "read"])
  })

  it("gives each caller a list of its own", () => {
    const tools = registry()
    const first = tools.enabled({ ruleset: [] })
    first.push(noop("extra"))
    first.splice(0, 1)
    expect(ids(tools.enabled({ ruleset: [] }))).toEqual(["bash", "edit", "write", "read"])
  })

  it("asks a tool's describe at every call, with that call's rules", () => {
    const seen: Permission.Ruleset[] = []
    let n = 0
    const bash = Tool.define("bash", {
      description: "bash",
      parameters: z.object({}),
      describe: ({ ruleset }) => {
        seen.push(ruleset)
        return `described ${++n}`
      },
      execute: async () => "",
    })
    const tools = createToolRegistry([bash, noop("read")])
    const ruleset: Permission.Ruleset = [deny("read")]
    expect(tools.enabled({ ruleset }).map((tool) => tool.description)).toEqual(["described 1"])
    expect(tools.enabled({ ruleset }).map((tool) => tool.description)).toEqual(["described 2"])
    const other: Permission.Ruleset = []
    expect(tools.enabled({ ruleset: other }).map((tool) => tool.description)).toEqual(["described 3", "read"])
    expect(seen[0]).toBe(ruleset)
    expect(seen[1]).toBe(ruleset)
    expect(seen[2]).toBe(other)
    expect(tools.all().map((tool) => tool.description)).toEqual(["bash", "read"])
  })

  it("offers a tool only to the models its offered() accepts, and every tool when no model is given", () => {
    const seen: { providerID: string; modelID: string }[] = []
    const patch = Tool.define("apply_patch", {
      description: "patch",
      parameters: z.object({}),
      offered: (model) => {
        seen.push(model)
        return model.modelID.startsWith("gpt-5")
      },
      execute: async () => "",
    })
    const tools = createToolRegistry([patch, noop("read")])
    const gpt = { providerID: "openai", modelID: "gpt-5" }
    expect(ids(tools.enabled({ ruleset: [], model: gpt }))).toEqual(["apply_patch", "read"])
    expect(
      ids(tools.enabled({ ruleset: [], model: { providerID: "anthropic", modelID: "claude" } })),
    ).toEqual(["read"])
    expect(ids(tools.enabled({ ruleset: [] }))).toEqual(["apply_patch", "read"])
    expect(seen).toEqual([gpt, { providerID: "anthropic", modelID: "claude" }])
  })

  it("refuses a describe or offered that is not a function", () => {
    const bad = { description: "x", parameters: z.object({}), execute: async () => "" }
    expect(() => Tool.define("x", { ...bad, describe: "text" as never })).toThrow(/describe/)
    expect(() => Tool.define("x", { ...bad, offered: true as never })).toThrow(/offered/)
  })
})
