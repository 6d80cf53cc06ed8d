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

  it("asks a describer at every call, with that call's rules", () => {
    const seen: Permission.Ruleset[] = []
    const bash = noop("bash")
    let n = 0
    const tools = createToolRegistry(
      [bash, noop("read")],
      new Map([
        [
          bash,
          (ruleset: Permission.Ruleset) => {
            seen.push(ruleset)
            return `described ${++n}`
          },
        ],
      ]),
    )
    const ruleset: Permission.Ruleset = [deny("read")]
    expect(tools.enabled({ ruleset }).map((tool) => tool.description)).toEqual(["described 1"])
    expect(tools.enabled({ ruleset }).map((tool) => tool.description)).toEqual(["described 2"])
    const other: Permission.Ruleset = []
    expect(tools.enabled({ ruleset: other }).map((tool) => tool.description)).toEqual(["described 3", "read"])
    expect(seen[0]).toBe(ruleset)
    expect(seen[1]).toBe(ruleset)
    expect(seen[2]).toBe(other)
  })
})
