// Every ```ts block of the README and docs/ is a program a reader will paste: it is checked
// against the packed package with nothing declared for it, so it compiles as written or fails.
//
// A block that builds on an earlier block of the same page says so in its first line, a
// comment the reader sees:
//
//   // Continues the example above.                 the nearest checked block before it
//   // Continues the first example on this page.    the page's first checked block
//   // Continues the example under "Some heading".  the first checked block under that heading
//
// Such a block is checked as the block it continues (itself resolved the same way, so chains
// work) followed by its own code, in one module: it must not re-import or redeclare a name the
// earlier code has. A block that is deliberately not a program (a shape written as data) is
// fenced ```ts nocheck and is not checked.
import { readFileSync } from "node:fs"
import { basename } from "node:path"

export type Snippet = { name: string; source: string; code: string }

const fence = /^( *)```ts([^\n]*)\n([\s\S]*?)^\1```/gm
const anyFence = /^( *)```[^\n]*\n[\s\S]*?^\1```/gm
const heading = /^#{1,6} (.+)$/gm
const continues =
  /^\/\/ Continues the (?:(example above)|(first example on this page)|example under "([^"]+)")\./

type Checked = { heading: string; source: string; code: string }

/** The heading each offset of the page falls under, ignoring `#` lines inside code blocks. */
function headings(text: string): (offset: number) => string {
  const prose = text.replace(anyFence, (block) => block.replace(/[^\n]/g, " "))
  const found = [...prose.matchAll(heading)].map((match) => ({ at: match.index, title: match[1] ?? "" }))
  return (offset) => found.filter((entry) => entry.at < offset).at(-1)?.title ?? ""
}

function continued(own: string, checked: Checked[], source: string): Checked | undefined {
  const match = continues.exec(own)
  if (!match) return undefined
  const [, above, first, under] = match
  const earlier = above
    ? checked.at(-1)
    : first
      ? checked[0]
      : checked.find((block) => block.heading === under)
  if (!earlier) throw new Error(`${source}: "${match[0]}", but no such checked block comes before it`)
  return earlier
}

export function extractSnippets(file: string): Snippet[] {
  const text = readFileSync(file, "utf8")
  const stem = basename(file, ".md").toLowerCase()
  const headingAt = headings(text)
  const checked: Checked[] = []
  const snippets: Snippet[] = []
  let index = 0
  for (const match of text.matchAll(fence)) {
    index += 1
    const [, indent = "", info = "", body = ""] = match
    if (info.trim().split(/\s+/).includes("nocheck")) continue
    const own = body.replace(new RegExp(`^${indent}`, "gm"), "")
    const source = `${file}:${text.slice(0, match.index).split("\n").length}`
    const earlier = continued(own, checked, source)
    // Each part says where it comes from, so a compiler error in a chain points at its block.
    const code = `${earlier ? `${earlier.code}\n` : ""}// ${source}\n${own}`
    checked.push({ heading: headingAt(match.index), source, code })
    // `export {}` makes a block without imports a module, so top-level await and names do not clash.
    snippets.push({ name: `${stem}-${index}`, source, code: `${code}\nexport {}\n` })
  }
  return snippets
}
