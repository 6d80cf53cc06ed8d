import { describe, expect, it } from "vitest"
import { FrontMatterError, parseFrontMatter } from "../../../src/tools/markdown/front-matter.js"

describe("parseFrontMatter", () => {
  it("splits the YAML block from the body", () => {
    const parsed = parseFrontMatter(
      "---\ndescription: Reviews code\ntemperature: 0.2\n---\nYou review.\n",
      "a.md",
    )
    expect(parsed).toEqual({ data: { description: "Reviews code", temperature: 0.2 }, body: "You review.\n" })
  })

  it("returns the whole text as the body when there is no front matter", () => {
    expect(parseFrontMatter("Just text\n---\nx: 1\n", "a.md")).toEqual({
      data: {},
      body: "Just text\n---\nx: 1\n",
    })
    expect(parseFrontMatter("", "a.md")).toEqual({ data: {}, body: "" })
  })

  it("reads an empty block as no data", () => {
    expect(parseFrontMatter("---\n---\nbody", "a.md")).toEqual({ data: {}, body: "body" })
    expect(parseFrontMatter("---\n# only a comment\n---\nbody", "a.md")).toEqual({ data: {}, body: "body" })
  })

  it("tolerates a byte order mark and CRLF line ends", () => {
    const parsed = parseFrontMatter(
      "\uFEFF---\r\nname: x\r\nlist:\r\n  - a\r\n---\r\nline one\r\nline two\r\n",
      "a.md",
    )
    expect(parsed.data).toEqual({ name: "x", list: ["a"] })
    expect(parsed.body).toBe("line one\r\nline two\r\n")
  })

  it("takes a closing line at the very end of the file", () => {
    expect(parseFrontMatter("---\nname: x\n---", "a.md")).toEqual({ data: { name: "x" }, body: "" })
  })

  it("does not take a line that only starts with --- as a fence", () => {
    expect(parseFrontMatter("----\nname: x\n----\nbody", "a.md")).toEqual({
      data: {},
      body: "----\nname: x\n----\nbody",
    })
  })

  it("retries a value holding a colon as a block scalar, as Claude Code's files need", () => {
    const parsed = parseFrontMatter(
      "---\ndescription: Use when: the user asks\nmodel: sonnet\n---\nBody",
      "a.md",
    )
    expect(parsed.data).toEqual({ description: "Use when: the user asks", model: "sonnet" })
    expect(parsed.body).toBe("Body")
  })

  it("names the file and YAML's message when the block is not YAML", () => {
    const error = catchError(() => parseFrontMatter("---\nname: [unclosed\n---\nbody", "agents/bad.md"))
    expect(FrontMatterError.isInstance(error)).toBe(true)
    const data = (error as FrontMatterError).data
    expect(data.file).toBe("agents/bad.md")
    expect(data.message).toContain("agents/bad.md")
    expect(data.message).toMatch(/line \d+/)
  })

  it("counts the line it reports in the file, fence included", () => {
    const error = catchError(() => parseFrontMatter("---\nname: a\nname: b\n---\n", "dup.md"))
    expect((error as FrontMatterError).data).toMatchObject({ file: "dup.md", line: 3 })
    expect((error as FrontMatterError).data.message).toBe(
      "dup.md: invalid front matter (line 3): Map keys must be unique",
    )
  })

  it("retries Claude's hyphenated keys too", () => {
    const parsed = parseFrontMatter("---\nargument-hint: <file>: what to check\n---\n", "c.md")
    expect(parsed.data).toEqual({ "argument-hint": "<file>: what to check" })
  })

  it("refuses front matter that is not a mapping", () => {
    for (const block of ["- a\n- b", "just a string", "42"]) {
      const error = catchError(() => parseFrontMatter(`---\n${block}\n---\nbody`, "x.md"))
      expect(FrontMatterError.isInstance(error)).toBe(true)
      expect((error as FrontMatterError).data.message).toContain("mapping")
    }
  })

  it("refuses an opening fence that is never closed", () => {
    const error = catchError(() => parseFrontMatter("---\nname: x\nbody without end\n", "open.md"))
    expect(FrontMatterError.isInstance(error)).toBe(true)
    expect((error as FrontMatterError).data.file).toBe("open.md")
  })
})

function catchError(run: () => unknown): unknown {
  try {
    run()
  } catch (error) {
    return error
  }
  throw new Error("expected an error")
}
