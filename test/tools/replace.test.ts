import { describe, expect, it } from "vitest"
import { reindent, replace } from "../../src/tools/replace.js"
import {
  blockAnchor,
  contextAware,
  escapeNormalized,
  indentationFlexible,
  lineTrimmed,
  multiOccurrence,
  REPLACERS,
  simple,
  trimmedBoundary,
  whitespaceNormalized,
} from "../../src/tools/replacers.js"

const found = (
  replacer: { find(content: string, find: string): Iterable<string> },
  content: string,
  find: string,
) => [...replacer.find(content, find)]

describe("replace", () => {
  it("replaces an exact, unique occurrence", () => {
    expect(replace("a = 1\nb = 2\n", "b = 2", "b = 3")).toEqual({
      content: "a = 1\nb = 3\n",
      count: 1,
      matcher: "exact",
    })
  })

  it("refuses an exact text found in several places, unless replaceAll", () => {
    expect(replace("x\nx\n", "x", "y")).toEqual({ failed: "ambiguous" })
    expect(replace("x\nx\n", "x", "y", true)).toEqual({ content: "y\ny\n", count: 2, matcher: "exact" })
  })

  it("says not-found when no replacer finds anything", () => {
    expect(replace("alpha\n", "omega", "x")).toEqual({ failed: "not-found" })
  })

  it("forgives trimmed lines and shifts the replacement to the real indentation", () => {
    const content = "function f() {\n    if (a) {\n        go()\n    }\n}\n"
    const result = replace(content, "  if (a) {\n      go()\n  }", "  if (a) {\n      stop()\n  }")
    expect(result).toEqual({
      content: "function f() {\n    if (a) {\n        stop()\n    }\n}\n",
      count: 1,
      matcher: "line-trimmed",
    })
  })

  it("takes a block by its first and last lines when the middle was misremembered", () => {
    const content = "start() {\n  one()\n  two()\n}\n"
    const result = replace(content, "start() {\n  uno()\n  two()\n}", "start() {}")
    expect(result).toEqual({ content: "start() {}\n", count: 1, matcher: "block-anchor" })
  })

  it("collapses runs of whitespace inside a line", () => {
    const result = replace("const  x =   1\n", "const x = 1", "const x = 2")
    expect(result).toEqual({ content: "const x = 2\n", count: 1, matcher: "whitespace-normalized" })
  })

  it("reads escapes the model wrote literally", () => {
    const result = replace('say("hi")\nsay("there")\n', 'say(\\"hi\\")\\nsay(\\"there\\")', "bye()")
    expect(result).toEqual({ content: "bye()\n", count: 1, matcher: "escape-normalized" })
  })
})

describe("the tolerant replacers", () => {
  it("keep a fixed order, strictest first", () => {
    expect(REPLACERS.map((replacer) => replacer.name)).toEqual([
      "exact",
      "line-trimmed",
      "block-anchor",
      "whitespace-normalized",
      "indentation-flexible",
      "escape-normalized",
      "trimmed-boundary",
      "context-aware",
      "multi-occurrence",
    ])
  })

  it("simple yields the text as given", () => {
    expect(found(simple, "abc", "b")).toEqual(["b"])
  })

  it("lineTrimmed yields the file's own lines", () => {
    expect(found(lineTrimmed, "  a  \n\tb\n", "a\nb\n")).toEqual(["  a  \n\tb"])
  })

  it("blockAnchor prefers the candidate whose middle is most alike", () => {
    const content = "{\n  apple()\n}\n{\n  banana()\n}\n"
    expect(found(blockAnchor, content, "{\n  bananas()\n}")).toEqual(["{\n  banana()\n}"])
  })

  it("blockAnchor gives up when several candidates all look unlike", () => {
    const content = "{\n  apple()\n}\n{\n  banana()\n}\n"
    expect(found(blockAnchor, content, "{\n  zzzzzzzzzzzzzzzzzzz\n}")).toEqual([])
  })

  it("whitespaceNormalized finds a phrase inside a longer line", () => {
    expect(found(whitespaceNormalized, "let  total =  a +  b;\n", "total = a + b")).toEqual([
      "total =  a +  b",
    ])
  })

  it("indentationFlexible matches a block indented differently as a whole", () => {
    const content = "    if (x) {\n      y()\n    }\n"
    expect(found(indentationFlexible, content, "if (x) {\n  y()\n}")).toEqual([
      "    if (x) {\n      y()\n    }",
    ])
  })

  it("escapeNormalized matches text whose escapes were doubled", () => {
    expect(found(escapeNormalized, "a\tb\n", "a\\tb")).toEqual(["a\tb"])
  })

  it("trimmedBoundary drops blank space around the text", () => {
    expect(found(trimmedBoundary, "one\ntwo\n", "\n\ntwo\n\n")).toEqual(["two"])
  })

  it("contextAware wants half of the middle lines equal", () => {
    const content = "begin\n  a\n  b\n  c\nend\n"
    expect(found(contextAware, content, "begin\n  a\n  b\n  X\nend")).toEqual(["begin\n  a\n  b\n  c\nend"])
    expect(found(contextAware, content, "begin\n  X\n  Y\n  c\nend")).toEqual([])
  })

  it("multiOccurrence yields every exact occurrence", () => {
    expect(found(multiOccurrence, "x.x.x", "x")).toEqual(["x", "x", "x"])
  })
})

describe("reindent", () => {
  it("maps each quoted indentation to the file's, a first line quoted from mid-line included", () => {
    const find = "foo() {\n    bar\n  }"
    const match = "  foo() {\n    bar\n  }"
    expect(reindent("foo() {\n    baz\n  }", find, match)).toBe("  foo() {\n    baz\n  }")
  })

  it("scales indentation quoted at two spaces a level where the file uses four", () => {
    const find = "if (a) {\n  go()\n}"
    const match = "if (a) {\n    go()\n}"
    expect(reindent("if (a) {\n  if (b) {\n    go()\n  }\n}", find, match)).toBe(
      "if (a) {\n    if (b) {\n        go()\n    }\n}",
    )
  })

  it("removes indentation the quote had too much of", () => {
    expect(reindent("      x\n      y", "      a\n      b", "  a\n  b")).toBe("  x\n  y")
  })

  it("leaves the replacement alone when the quote maps one indentation two ways", () => {
    const find = "  a\n  b"
    const match = "  a\n    b"
    expect(reindent("  x\n  y", find, match)).toBe("  x\n  y")
  })
})
