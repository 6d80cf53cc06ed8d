import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { localOperations } from "../../src/tools/local-operations.js"
import { readTool } from "../../src/tools/read.js"
import { permissionHarness, rules, tempProject } from "./helpers.js"

let project: Awaited<ReturnType<typeof tempProject>>
beforeEach(async () => {
  project = await tempProject()
})
afterEach(() => project.cleanup())

async function read(input: Record<string, unknown>) {
  const harness = await permissionHarness(rules({}))
  return harness.run(readTool({ directory: project.directory, operations: localOperations }), input)
}

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13])

describe("read", () => {
  it("numbers lines and says where the file ends", async () => {
    await project.put("project/a.txt", "first\nsecond\n")
    const result = await read({ filePath: "a.txt" })
    expect(result.output).toBe(
      "<file>\n00001| first\n00002| second\n\n(End of file - total 2 lines)\n</file>",
    )
    expect(result.title).toBe("a.txt")
  })

  it("pages with offset and limit, and tells how to read on", async () => {
    const lines = Array.from({ length: 10 }, (_, index) => `line ${index + 1}`)
    await project.put("project/a.txt", lines.join("\n"))
    const result = await read({ filePath: "a.txt", offset: 4, limit: 3 })
    expect(result.output).toContain("00004| line 4\n00005| line 5\n00006| line 6\n")
    expect(result.output).not.toContain("line 7")
    expect(result.output).toContain("(Showing lines 4-6 of 10. Use offset=7 to read on.)")
  })

  it("reads at most 2000 lines by default", async () => {
    await project.put(
      "project/big.txt",
      Array.from({ length: 2500 }, (_, index) => `${index + 1}`).join("\n"),
    )
    const result = await read({ filePath: "big.txt" })
    // Kept under the runtime's own cut so the note that says how to read on survives.
    expect(result.output).toMatch(/Use offset=\d+ to read on\.\)\n<\/file>$/)
    expect(result.output).not.toContain("02001| 2001")
  })

  it("cuts lines over 2000 characters", async () => {
    await project.put("project/long.txt", `${"x".repeat(2500)}\nshort\n`)
    const result = await read({ filePath: "long.txt" })
    expect(result.output).toContain(`00001| ${"x".repeat(2000)}... (line cut at 2000 characters)`)
    expect(result.output).toContain("00002| short")
  })

  it("refuses an offset past the end", async () => {
    await project.put("project/a.txt", "one\n")
    await expect(read({ filePath: "a.txt", offset: 5 })).rejects.toThrow("Offset 5 is past the end of a.txt")
  })

  it("refuses binary files, by content and by extension", async () => {
    await project.put("project/blob", Uint8Array.from([1, 2, 0, 3, 4]))
    await project.put("project/lib.wasm", "looks like text")
    await expect(read({ filePath: "blob" })).rejects.toThrow("Cannot read binary file: blob")
    await expect(read({ filePath: "lib.wasm" })).rejects.toThrow("Cannot read binary file: lib.wasm")
  })

  it("returns images and PDFs as attachments", async () => {
    await project.put("project/logo.png", PNG)
    await project.put("project/doc.pdf", "%PDF-1.4\n")
    const image = await read({ filePath: "logo.png" })
    expect(image.attachments).toEqual([
      {
        mime: "image/png",
        url: `data:image/png;base64,${Buffer.from(PNG).toString("base64")}`,
        filename: "logo.png",
      },
    ])
    const pdf = await read({ filePath: "doc.pdf" })
    expect(pdf.attachments?.[0]?.mime).toBe("application/pdf")
    expect(pdf.output).toContain("PDF read: doc.pdf")
  })

  it("lists a directory, subdirectories marked", async () => {
    await project.put("project/src/b.ts", "")
    await project.put("project/src/a.ts", "")
    await project.put("project/src/lib/c.ts", "")
    const result = await read({ filePath: "src" })
    expect(result.output).toBe('<directory path="src">\na.ts\nb.ts\nlib/\n\n(3 entries)\n</directory>')
  })

  it("suggests similar names for a missing file", async () => {
    await project.put("project/src/config.ts", "")
    await project.put("project/src/unrelated.md", "")
    await expect(read({ filePath: "src/confg.ts" })).rejects.toThrow(
      "File not found: src/confg.ts\n\nDid you mean one of these?\nsrc/config.ts",
    )
  })

  it("drops a byte-order mark and reads CRLF lines", async () => {
    await project.put("project/win.txt", "\uFEFFone\r\ntwo\r\n")
    const result = await read({ filePath: "win.txt" })
    expect(result.output).toContain("00001| one\n00002| two\n")
  })
})
