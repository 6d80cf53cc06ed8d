import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { expand, words } from "../../src/command/expand.js"

describe("Command.expand", () => {
  it("puts each word in its positional placeholder", () => {
    expect(expand("Compare $1 with $2.", "a.ts b.ts")).toBe("Compare a.ts with b.ts.")
  })

  it("keeps a quoted phrase as one word, without its quotes", () => {
    expect(expand("Rename $1 to $2", `"old name" 'new name'`)).toBe("Rename old name to new name")
  })

  it("gives the highest placeholder the rest of the words", () => {
    expect(expand("Fix $1: $2", "src/a.ts the  loop never   ends")).toBe("Fix src/a.ts: the loop never ends")
  })

  it("turns a placeholder without a word into an empty string", () => {
    expect(expand("Review $1 and $2 then $3.", "a.ts")).toBe("Review a.ts and  then .")
  })

  it("puts the whole argument string, trimmed, in $ARGUMENTS", () => {
    expect(expand("Review: $ARGUMENTS", `  src/a.ts "x y"  `)).toBe(`Review: src/a.ts "x y"`)
  })

  it("fills $ARGUMENTS and positional placeholders together", () => {
    expect(expand("$1 | $ARGUMENTS", "a b")).toBe("a b | a b")
  })

  it("appends the arguments after a blank line when the template has no placeholder", () => {
    expect(expand("Write tests.", " for the parser ")).toBe("Write tests.\n\nfor the parser")
    expect(expand("Write tests.", "   ")).toBe("Write tests.")
  })

  it("reads $10 as the tenth word, never as $1 followed by 0", () => {
    const args = "a b c d e f g h i j k"
    expect(expand("$1 $10", args)).toBe("a j k")
    expect(expand("$1 $10 $11", args)).toBe("a j k")
  })

  it("fills a repeated placeholder each time", () => {
    expect(expand("$1, $1 and $2", "x y")).toBe("x, x and y")
    expect(expand("$1 then $1", "x y")).toBe("x y then x y")
  })

  it("leaves any other $ as written", () => {
    expect(expand("Costs $ 5, $0, $01, $HOME, $$1", "x")).toBe("Costs $ 5, $0, $01, $HOME, $x")
  })

  it("keeps an argument that reads like a placeholder as written", () => {
    expect(expand("$1 and $2", "$2 $ARGUMENTS")).toBe("$2 and $ARGUMENTS")
  })

  it("trims the result", () => {
    expect(expand("\n  Review $1\n", "a.ts")).toBe("Review a.ts")
  })

  it("returns the trimmed arguments for a template that is only $ARGUMENTS", () => {
    fc.assert(
      fc.property(fc.string(), (args) => {
        expect(expand("$ARGUMENTS", args)).toBe(args.trim())
      }),
    )
  })

  it("returns the trimmed template when there are no arguments", () => {
    fc.assert(
      fc.property(fc.string(), (template) => {
        const result = expand(template, "")
        if (!/\$(ARGUMENTS|[1-9])/.test(template)) expect(result).toBe(template.trim())
      }),
    )
  })

  it("gives back plain words one by one, and the last placeholder all the rest", () => {
    const word = fc.stringMatching(/^[a-z0-9./-]{1,8}$/)
    fc.assert(
      fc.property(fc.array(word, { minLength: 3, maxLength: 8 }), (list) => {
        expect(expand("$1|$2|$3", list.join(" "))).toBe(`${list[0]}|${list[1]}|${list.slice(2).join(" ")}`)
      }),
    )
  })
})

describe("words", () => {
  it("splits on any whitespace", () => {
    expect(words(" a\tb\n c ")).toEqual(["a", "b", "c"])
  })

  it("joins a quoted stretch to the word around it, as a shell does", () => {
    expect(words(`--name="a b" 'c'd`)).toEqual(["--name=a b", "cd"])
  })

  it("keeps the other quote inside a quoted stretch", () => {
    expect(words(`"it's" 'say "hi"'`)).toEqual(["it's", `say "hi"`])
  })

  it("counts an empty quote as an empty word", () => {
    expect(words(`a "" b`)).toEqual(["a", "", "b"])
  })

  it("runs an unclosed quote to the end", () => {
    expect(words(`a "b c`)).toEqual(["a", "b c"])
  })
})
