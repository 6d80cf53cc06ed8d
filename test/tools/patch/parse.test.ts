import { describe, expect, it } from "vitest"
import { parsePatch } from "../../../src/tools/patch/index.js"
import { patchFailure } from "./helpers.js"

describe("parsePatch", () => {
  it("reads added, deleted, updated and moved files in order", () => {
    const patch = [
      "*** Begin Patch",
      "*** Add File: hello.txt",
      "+Hello",
      "+world",
      "*** Update File: data/config.yaml",
      "*** Move to: data/settings.yaml",
      "@@ name: greeting",
      "-value: Hi",
      "+value: Hello",
      "*** Delete File: obsolete.txt",
      "*** End Patch",
    ].join("\n")
    expect(parsePatch(patch)).toEqual([
      { type: "add", path: "hello.txt", content: "Hello\nworld\n" },
      {
        type: "update",
        path: "data/config.yaml",
        movePath: "data/settings.yaml",
        chunks: [
          {
            context: "name: greeting",
            oldLines: ["value: Hi"],
            newLines: ["value: Hello"],
            endOfFile: false,
          },
        ],
      },
      { type: "delete", path: "obsolete.txt" },
    ])
  })

  it("reads context, removed and added lines, several chunks and the end-of-file anchor", () => {
    const patch = [
      "*** Begin Patch",
      "*** Update File: a.ts",
      "@@ function one() {",
      " const a = 1",
      "-return a",
      "+return a + 1",
      "@@",
      "+// appended",
      "*** End of File",
      "*** End Patch",
    ].join("\n")
    expect(parsePatch(patch)).toEqual([
      {
        type: "update",
        path: "a.ts",
        chunks: [
          {
            context: "function one() {",
            oldLines: ["const a = 1", "return a"],
            newLines: ["const a = 1", "return a + 1"],
            endOfFile: false,
          },
          { oldLines: [], newLines: ["// appended"], endOfFile: true },
        ],
      },
    ])
  })

  it("takes a first chunk without @@, and a bare empty line in a chunk as an empty context line", () => {
    const patch = [
      "*** Begin Patch",
      "*** Update File: a.txt",
      " one",
      "",
      "-two",
      "+2",
      "*** End Patch",
    ].join("\n")
    expect(parsePatch(patch)).toEqual([
      {
        type: "update",
        path: "a.txt",
        chunks: [{ oldLines: ["one", "", "two"], newLines: ["one", "", "2"], endOfFile: false }],
      },
    ])
  })

  it("strips a heredoc wrapper, surrounding blank lines and CRLF line endings", () => {
    const body = "*** Begin Patch\r\n*** Add File: a.txt\r\n+one\r\n*** End Patch"
    expect(parsePatch(`\n cat <<'EOF'\n${body}\nEOF\n`)).toEqual([
      { type: "add", path: "a.txt", content: "one\n" },
    ])
    expect(parsePatch(`<<EOF\n${body}\nEOF`)).toEqual([{ type: "add", path: "a.txt", content: "one\n" }])
  })

  it("makes an added file without + lines empty", () => {
    expect(parsePatch("*** Begin Patch\n*** Add File: empty.txt\n*** End Patch")).toEqual([
      { type: "add", path: "empty.txt", content: "" },
    ])
  })

  it("refuses a patch without its Begin and End markers", () => {
    for (const text of [
      "*** Add File: a\n+x",
      "*** Begin Patch\n*** Add File: a\n+x",
      "*** End Patch\n*** Begin Patch",
    ]) {
      const error = patchFailure(() => parsePatch(text))
      expect(error.data.reason).toBe("parse")
      expect(error.message).toContain("*** Begin Patch")
    }
  })

  it("refuses an empty patch, and one whose sections name no file", () => {
    expect(patchFailure(() => parsePatch("*** Begin Patch\n*** End Patch")).data.reason).toBe("empty")
    const nameless = patchFailure(() => parsePatch("*** Begin Patch\nsome text\n*** End Patch"))
    expect(nameless.data.reason).toBe("empty")
    expect(nameless.message).toContain("no file")
  })

  it("reads a rename without changes", () => {
    expect(parsePatch("*** Begin Patch\n*** Update File: a.ts\n*** Move to: b.ts\n*** End Patch")).toEqual([
      { type: "update", path: "a.ts", movePath: "b.ts", chunks: [] },
    ])
  })

  it("refuses a header without a path, and an update that neither changes nor moves", () => {
    const headerless = patchFailure(() => parsePatch("*** Begin Patch\n*** Add File:\n+x\n*** End Patch"))
    expect(headerless.data.reason).toBe("parse")
    const empty = patchFailure(() => parsePatch("*** Begin Patch\n*** Update File: a.ts\n*** End Patch"))
    expect(empty.data).toMatchObject({ reason: "parse", path: "a.ts" })
  })
})
