import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { InvalidInputError } from "../../../src/error/invalid-input.js"
import { instructionFiles } from "../../../src/tools/instructions/index.js"
import { localOperations } from "../../../src/tools/local-operations.js"
import { block, instructionTree, sourceInput } from "./tree.js"

let tree: Awaited<ReturnType<typeof instructionTree>>
beforeEach(async () => {
  tree = await instructionTree()
})
afterEach(() => tree.cleanup())

const KiB = 1024

describe("instructionFiles: size caps", () => {
  it("cuts a file over the per-file cap (32 KiB by default) and says where the rest is", async () => {
    const big = await tree.put("repo/AGENTS.md", "x".repeat(90 * KiB))
    const files = instructionFiles({ operations: localOperations, directory: tree.directory, global: false })
    const [only, ...rest] = await files.source(sourceInput(tree.directory))
    expect(rest).toEqual([])
    expect(only).toBe(
      block(big, `${"x".repeat(32 * KiB)}\n[cut at 32 KiB of 90 KiB: read the file for the rest]`),
    )
  })

  it("cuts on a character, not inside one", async () => {
    const file = await tree.put("repo/AGENTS.md", "é".repeat(10))
    const files = instructionFiles({
      operations: localOperations,
      directory: tree.directory,
      global: false,
      maxFileBytes: 5,
    })
    expect(await files.source(sourceInput(tree.directory))).toEqual([
      block(file, "éé\n[cut at 5 bytes of 20 bytes: read the file for the rest]"),
    ])
  })

  it("fills the total cap in order, cuts the file that crosses it and lists the files left out", async () => {
    const root = await tree.put("repo/AGENTS.md", "a".repeat(600))
    const here = await tree.put("repo/pkg/AGENTS.md", "b".repeat(600))
    const extra = await tree.put("repo/pkg/NOTES.md", "c".repeat(10))
    const files = instructionFiles({
      operations: localOperations,
      directory: tree.directory,
      global: false,
      extra: ["NOTES.md"],
      maxTotalBytes: 1000,
    })
    expect(await files.source(sourceInput(tree.directory))).toEqual([
      block(root, "a".repeat(600)),
      block(here, `${"b".repeat(400)}\n[cut at 400 bytes of 600 bytes: read the file for the rest]`),
      [
        "Instruction files left out (their 1000 bytes in total are used up); read them when they matter:",
        `- ${extra}`,
      ].join("\n"),
    ])
  })
})

describe("instructionFiles: options", () => {
  it("refuses a cap that is not a positive whole number, naming the option", () => {
    const make = (maxFileBytes: number) =>
      instructionFiles({ operations: localOperations, directory: tree.directory, maxFileBytes })
    expect(() => make(0)).toThrow(InvalidInputError)
    expect(() => make(1.5)).toThrow(/maxFileBytes/)
    expect(() => make(1)).not.toThrow()
  })
})
