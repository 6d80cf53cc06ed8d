import type TurndownService from "turndown"
import { importOptional } from "../../util/import-optional.js"
import { type OptionalPackage, requirePackages } from "../packages.js"

/** What webfetch's markdown and text formats need: turndown (which brings its HTML parser). */
export const WEBFETCH_PACKAGES: readonly OptionalPackage[] = [{ name: "turndown", entry: "turndown" }]

/** HTML to markdown and to plain text. */
export type Converters = { markdown(html: string): string; text(html: string): string }

// Elements whose text is not the page's text: code, styling, fallbacks and embedded documents.
const NOT_TEXT = ["script", "style", "noscript", "iframe", "object", "embed"] as const
// Blocks that read as one line each in plain text, not as paragraphs.
const LINES = new Set(["LI", "TR", "DT", "DD"])
const CELLS = new Set(["TD", "TH"])

/**
 * The converters, loading turndown at the first call (and again after a failed load), so a
 * runtime that never fetches HTML as markdown or text never loads it. Without turndown installed
 * the call fails with MissingPackageError and the command that installs it.
 */
export function createConverters(): () => Promise<Converters> {
  let loading: Promise<Converters> | undefined
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined
      throw error
    })
    return loading
  }
}

async function load(): Promise<Converters> {
  let Turndown: typeof TurndownService
  try {
    Turndown = (await importOptional<{ default: typeof TurndownService }>("turndown")).default
  } catch (error) {
    requirePackages("webfetch's markdown and text formats", WEBFETCH_PACKAGES)
    throw error
  }
  const markdown = markdownService(Turndown)
  const text = textService(Turndown)
  return {
    markdown: (html) => markdown.turndown(html),
    // Table cells end in a space, which would end their row's line.
    text: (html) => text.turndown(html).replace(/[ \t]+$/gm, ""),
  }
}

/** OpenCode's settings: ATX headings, `---` rules, `-` bullets, fenced code, `*` emphasis. */
function markdownService(Turndown: typeof TurndownService): TurndownService {
  const service = new Turndown({
    headingStyle: "atx",
    hr: "---",
    bulletListMarker: "-",
    codeBlockStyle: "fenced",
    emDelimiter: "*",
  })
  return service.remove(["script", "style", "meta", "link"])
}

/**
 * Plain text: turndown's parser and whitespace rules, with one rule for every element that
 * keeps only its text (blocks as paragraphs, list items and rows as lines) and no escaping.
 */
function textService(Turndown: typeof TurndownService): TurndownService {
  const service = new Turndown()
  const skipped = new Set<string>(NOT_TEXT.map((name) => name.toUpperCase()))
  service.remove([...NOT_TEXT])
  service.addRule("text", {
    filter: (node) => !skipped.has(node.nodeName),
    replacement: (content, node) => {
      const name: string = node.nodeName
      if (name === "BR") return "\n"
      if (CELLS.has(name)) return `${content} `
      if (LINES.has(name)) return `\n${content}\n`
      return (node as { isBlock?: boolean }).isBlock ? `\n\n${content}\n\n` : content
    },
  })
  service.escape = (text) => text
  return service
}
