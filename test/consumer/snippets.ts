// Every ```ts block of the README and docs/ is a program a reader will paste. Blocks are
// checked as written, each as its own module, against the packed package. A block that is
// deliberately not a program (a shape written as data) is fenced ```ts nocheck.
import { readFileSync } from "node:fs"
import { basename } from "node:path"

export type Snippet = { name: string; source: string; code: string }

const fence = /^( *)```ts([^\n]*)\n([\s\S]*?)^\1```/gm

export function extractSnippets(file: string): Snippet[] {
  const text = readFileSync(file, "utf8")
  const stem = basename(file, ".md").toLowerCase()
  const snippets: Snippet[] = []
  let index = 0
  for (const match of text.matchAll(fence)) {
    index += 1
    const [, indent = "", info = "", body = ""] = match
    if (info.trim().split(/\s+/).includes("nocheck")) continue
    const code = body.replace(new RegExp(`^${indent}`, "gm"), "")
    const line = text.slice(0, match.index).split("\n").length
    // `export {}` makes a block without imports a module, so top-level await and names do not clash.
    snippets.push({ name: `${stem}-${index}`, source: `${file}:${line}`, code: `${code}\nexport {}\n` })
  }
  return snippets
}
