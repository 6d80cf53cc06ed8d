import type { Node } from "web-tree-sitter"

/** A shell word, known as far as it can be without running anything. */
export type Word = {
  /** As written in the command. */
  raw: string
  /** What the shell passes on once quotes are removed; the raw text when the word is dynamic. */
  value: string
  /**
   * `literal`: exactly `value`. `pattern`: `value` still goes through globbing, brace or tilde
   * expansion. `dynamic`: it holds a parameter, command or arithmetic expansion.
   */
  kind: "literal" | "pattern" | "dynamic"
}

type Evaluated = { value: string; expands: boolean }

/** The word a node of the tree-sitter-bash grammar stands for. */
export function wordOf(node: Node): Word {
  const raw = node.text
  const evaluated = evaluate(node)
  if (!evaluated) return { raw, value: raw, kind: "dynamic" }
  return { raw, value: evaluated.value, kind: evaluated.expands ? "pattern" : "literal" }
}

/** A word known to be exactly `value`, e.g. one split out of a literal script. */
export function literal(value: string): Word {
  return { raw: value, value, kind: "literal" }
}

function evaluate(node: Node): Evaluated | undefined {
  switch (node.type) {
    case "word":
      return unquoted(node.text)
    case "number":
      return { value: node.text, expands: false }
    case "raw_string":
      return { value: node.text.slice(1, -1), expands: false }
    case "ansi_c_string":
      return { value: decodeAnsiC(node.text.slice(2, -1)), expands: false }
    case "string":
      return doubleQuoted(node)
    case "translated_string": {
      const inner = node.namedChildren[0]
      return inner ? doubleQuoted(inner) : { value: "", expands: false }
    }
    case "concatenation":
      return concatenation(node)
    default:
      return undefined
  }
}

function concatenation(node: Node): Evaluated | undefined {
  const parts = node.children.filter((child): child is Node => child !== null)
  // Gaps between the parts would be text the grammar did not account for: not known, then.
  if (parts.reduce((length, part) => length + part.text.length, 0) !== node.text.length) return undefined
  let value = ""
  let expands = BRACE_EXPANSION.test(node.text)
  for (const part of parts) {
    const evaluated = evaluate(part)
    if (!evaluated) return undefined
    value += evaluated.value
    expands ||= evaluated.expands
  }
  return { value, expands }
}

const BRACE_EXPANSION = /\{[^{}]*(,|\.\.)[^{}]*\}/

/** An unquoted word: backslashes quote the next character; `*?[`, braces and `~` expand. */
function unquoted(text: string): Evaluated {
  let value = ""
  let expands = text.startsWith("~") || BRACE_EXPANSION.test(text)
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!
    if (char === "\\") {
      index++
      // A backslash before a newline joins the lines.
      if (index < text.length && text[index] !== "\n") value += text[index]
      continue
    }
    if (char === "*" || char === "?" || char === "[") expands = true
    value += char
  }
  return { value, expands }
}

/** Inside double quotes only `$`, backquote, `"`, `\` and newline are escaped; any expansion makes it dynamic. */
function doubleQuoted(node: Node): Evaluated | undefined {
  if (node.namedChildren.some((child) => child?.type !== "string_content")) return undefined
  const value = node.text
    .slice(1, -1)
    .replace(/\\([$`"\\\n])/g, (_, char: string) => (char === "\n" ? "" : char))
  return { value, expands: false }
}

const SIMPLE_ESCAPES: Record<string, string> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
}

/** The text of `$'…'`, decoded as bash does, so `$'\x72m'` is known to be `rm`. */
export function decodeAnsiC(text: string): string {
  return text.replace(
    /\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/gs,
    (whole, sequence: string) => {
      const kind = sequence[0]!
      if (kind === "x" || kind === "u" || kind === "U")
        return codePoint(Number.parseInt(sequence.slice(1), 16))
      if (/[0-7]/.test(kind)) return codePoint(Number.parseInt(sequence, 8))
      if (kind === "c" && sequence.length === 2) return codePoint(sequence.toUpperCase().charCodeAt(1) & 0x1f)
      return SIMPLE_ESCAPES[sequence] ?? whole
    },
  )
}

function codePoint(value: number): string {
  return value <= 0x10ffff ? String.fromCodePoint(value) : ""
}
