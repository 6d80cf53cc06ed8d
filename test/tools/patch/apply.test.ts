import { describe, expect, it } from "vitest"
import { applyChunks, applyHunks, type PatchChunk, parsePatch } from "../../../src/tools/patch/index.js"
import { patchFailure } from "./helpers.js"

const chunk = (oldLines: string[], newLines: string[], more: Partial<PatchChunk> = {}): PatchChunk => ({
  oldLines,
  newLines,
  endOfFile: false,
  ...more,
})

describe("applyChunks", () => {
  it("replaces the old lines with the new, keeping the final newline", () => {
    expect(applyChunks("a\nb\nc\n", [chunk(["b"], ["B", "B2"])], "f.txt")).toBe("a\nB\nB2\nc\n")
  })

  it("seeks the @@ context line first, so the change lands after it", () => {
    const text = "function one() {\n  return 1\n}\nfunction two() {\n  return 1\n}\n"
    const result = applyChunks(
      text,
      [chunk(["  return 1"], ["  return 2"], { context: "function two() {" })],
      "f.ts",
    )
    expect(result).toBe("function one() {\n  return 1\n}\nfunction two() {\n  return 2\n}\n")
  })

  it("applies several chunks in order, each after the last", () => {
    const text = "x\ny\nx\ny\n"
    expect(applyChunks(text, [chunk(["x"], ["1"]), chunk(["x"], ["2"])], "f")).toBe("1\ny\n2\ny\n")
  })

  it("appends a chunk without old lines at the end", () => {
    expect(applyChunks("a\n", [chunk([], ["b"], { endOfFile: true })], "f")).toBe("a\nb\n")
  })

  it("anchors an end-of-file chunk at the end when the lines also occur earlier", () => {
    const text = "end\nmiddle\nend\n"
    expect(applyChunks(text, [chunk(["end"], ["last"], { endOfFile: true })], "f")).toBe(
      "end\nmiddle\nlast\n",
    )
    expect(applyChunks(text, [chunk(["end"], ["first"])], "f")).toBe("first\nmiddle\nend\n")
  })

  it("matches ignoring trailing whitespace, then surrounding whitespace", () => {
    expect(applyChunks("a  \nb\n", [chunk(["a"], ["A"])], "f")).toBe("A\nb\n")
    expect(applyChunks("    a\nb\n", [chunk(["a"], ["A"])], "f")).toBe("A\nb\n")
  })

  it("matches typographic quotes, dashes, ellipses and non-breaking spaces as their ASCII forms", () => {
    const text = "say(\u201Chello\u201D) \u2014 it\u2019s\u2026\u00A0done\n"
    expect(applyChunks(text, [chunk(['say("hello") - it\'s... done'], ["said()"])], "f")).toBe("said()\n")
  })

  it("retries without a trailing empty line the file does not have", () => {
    expect(applyChunks("a\nb", [chunk(["b", ""], ["c", ""])], "f")).toBe("a\nc\n")
  })

  it("gives a file without a final newline one", () => {
    expect(applyChunks("a\nb", [chunk(["a"], ["A"])], "f")).toBe("A\nb\n")
  })

  it("names the context line it could not find", () => {
    const error = patchFailure(() =>
      applyChunks("a\n", [chunk(["a"], ["b"], { context: "class Missing" })], "src/f.ts"),
    )
    expect(error.data).toMatchObject({ reason: "context", path: "src/f.ts" })
    expect(error.message).toContain("class Missing")
  })

  it("names the lines it could not find", () => {
    const error = patchFailure(() => applyChunks("a\n", [chunk(["nowhere", "at all"], ["b"])], "src/f.ts"))
    expect(error.data).toMatchObject({ reason: "lines", path: "src/f.ts" })
    expect(error.message).toContain("nowhere\nat all")
  })
})

describe("applyHunks", () => {
  const files = (initial: Record<string, string>) => ({ read: (path: string) => initial[path] })

  it("computes each file's text before and after, and the final state of every path", () => {
    const hunks = parsePatch(
      [
        "*** Begin Patch",
        "*** Add File: new.txt",
        "+fresh",
        "*** Update File: a.txt",
        "-a",
        "+A",
        "*** Update File: b.txt",
        "*** Move to: c.txt",
        "@@",
        "-b",
        "+B",
        "*** Delete File: d.txt",
        "*** End Patch",
      ].join("\n"),
    )
    const result = applyHunks(hunks, files({ "a.txt": "a\n", "b.txt": "b\n", "d.txt": "d\n" }))
    expect(result.files).toEqual([
      { type: "add", path: "new.txt", before: "", after: "fresh\n" },
      { type: "update", path: "a.txt", before: "a\n", after: "A\n" },
      { type: "move", path: "b.txt", movePath: "c.txt", before: "b\n", after: "B\n" },
      { type: "delete", path: "d.txt", before: "d\n", after: "" },
    ])
    expect(Object.fromEntries(result.final)).toEqual({
      "new.txt": "fresh\n",
      "a.txt": "A\n",
      "b.txt": undefined,
      "c.txt": "B\n",
      "d.txt": undefined,
    })
  })

  it("applies sections on one file in turn, each to what the last left", () => {
    const hunks = parsePatch(
      "*** Begin Patch\n*** Add File: a.txt\n+one\n*** Update File: a.txt\n-one\n+two\n*** End Patch",
    )
    const result = applyHunks(hunks, files({}))
    expect(result.files.map((file) => file.after)).toEqual(["one\n", "two\n"])
    expect(result.final.get("a.txt")).toBe("two\n")
  })

  it("treats two spellings of one file as one when given a key", () => {
    const hunks = parsePatch("*** Begin Patch\n*** Update File: A.txt\n*** Move to: a.txt\n*** End Patch")
    const result = applyHunks(hunks, {
      read: (path) => (path.toLowerCase() === "a.txt" ? "x\n" : undefined),
      key: (path) => path.toLowerCase(),
    })
    expect([...result.final]).toEqual([["a.txt", "x\n"]])
  })

  it("refuses to update or delete a file that is not there", () => {
    const update = patchFailure(() =>
      applyHunks(parsePatch("*** Begin Patch\n*** Update File: gone.txt\n-a\n+b\n*** End Patch"), files({})),
    )
    expect(update.data).toMatchObject({ reason: "missing-file", path: "gone.txt" })
    const remove = patchFailure(() =>
      applyHunks(parsePatch("*** Begin Patch\n*** Delete File: gone.txt\n*** End Patch"), files({})),
    )
    expect(remove.data).toMatchObject({ reason: "missing-file", path: "gone.txt" })
  })
})
