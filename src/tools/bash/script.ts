import type { Node } from "web-tree-sitter"
import { literal, type Word, wordOf } from "./words.js"

/** One simple command found anywhere in a script: in a list, pipeline, subshell, substitution or body. */
export type SimpleCommand = {
  /** `NAME=value` prefixes, as written. */
  assignments: Word[]
  /** The name and the arguments. */
  words: Word[]
}

/** What a command line runs, as far as the parser could tell. */
export type Script = {
  commands: SimpleCommand[]
  /** The files it redirects to or from (`> out`, `< in`). */
  redirects: Word[]
  /** False when the text has a syntax error: `commands` are then only what could be recovered. */
  complete: boolean
}

/** Parses a command line; synchronous once the grammar is loaded. */
export type Parse = (text: string) => Script

/** The simple commands and redirections of a tree-sitter-bash tree, in source order. */
export function scriptOf(root: Node): Script {
  const script: Script = { commands: [], redirects: [], complete: !root.hasError }
  const handled = new Set<number>()
  // An explicit stack: a deeply nested command line must not overflow the call stack.
  const stack: Node[] = [root]
  while (stack.length > 0) {
    const node = stack.pop()!
    if (!handled.has(node.id)) visit(node, script, handled)
    stack.push(...children(node).reverse())
  }
  return script
}

function visit(node: Node, script: Script, handled: Set<number>) {
  switch (node.type) {
    case "command":
      script.commands.push(simpleCommand(node, script.redirects))
      return
    case "declaration_command":
    case "unset_command":
      script.commands.push(declaration(node))
      return
    case "redirected_statement":
      redirected(node, script, handled)
      return
  }
}

function simpleCommand(node: Node, redirects: Word[], extra: Word[] = []): SimpleCommand {
  const command: SimpleCommand = { assignments: [], words: [] }
  const trailing = [...extra]
  node.children.forEach((child, index) => {
    if (!child) return
    const field = node.fieldNameForChild(index)
    if (child.type === "variable_assignment") command.assignments.push(assignment(child))
    else if (child.type === "file_redirect") {
      const found = targets(child)
      redirects.push(...found.redirects)
      trailing.push(...found.extra)
    } else if (field === "name") command.words.unshift(commandName(child))
    else if (field === "argument") command.words.push(wordOf(child))
  })
  command.words.push(...trailing)
  return command
}

function commandName(node: Node): Word {
  const parts = node.namedChildren.filter((child): child is Node => child !== null)
  return parts.length === 1 ? wordOf(parts[0]!) : { raw: node.text, value: node.text, kind: "dynamic" }
}

/** `export A=1`, `local x`, `unset B`: the keyword, then each name or assignment. */
function declaration(node: Node): SimpleCommand {
  const words = children(node).map((child) => {
    if (!child.isNamed) return literal(child.text)
    return child.type === "variable_assignment" ? assignment(child) : wordOf(child)
  })
  return { assignments: [], words }
}

function assignment(node: Node): Word {
  const dynamic = /[$`]/.test(node.text)
  return { raw: node.text, value: node.text, kind: dynamic ? "dynamic" : "literal" }
}

/**
 * The grammar reads words after a redirection's target (`ls > out -la`) as more targets, where
 * bash passes them to the command as arguments: they go back to the command here.
 */
function redirected(node: Node, script: Script, handled: Set<number>) {
  const body = node.childForFieldName("body")
  const extra: Word[] = []
  for (const redirect of node.childrenForFieldName("redirect")) {
    if (redirect?.type !== "file_redirect") continue
    const found = targets(redirect)
    script.redirects.push(...found.redirects)
    extra.push(...found.extra)
  }
  if (body?.type === "command") {
    handled.add(body.id)
    script.commands.push(simpleCommand(body, script.redirects, extra))
  } else script.redirects.push(...extra)
}

/** The file a redirection names, and the words the grammar wrongly read as more targets. */
function targets(redirect: Node): { redirects: Word[]; extra: Word[] } {
  const [target, ...rest] = redirect.childrenForFieldName("destination").filter(isNode)
  const redirects = target && !duplicatesDescriptor(redirect, target) ? [wordOf(target)] : []
  return { redirects, extra: rest.map(wordOf) }
}

/** `2>&1`, `>&-`: a descriptor, not a file. */
function duplicatesDescriptor(redirect: Node, target: Node): boolean {
  const operator = redirect.children.find((child) => child !== null && !child.isNamed)?.text
  return (operator === ">&" || operator === "<&") && (target.type === "number" || target.text === "-")
}

function children(node: Node): Node[] {
  return node.children.filter(isNode)
}

function isNode(node: Node | null): node is Node {
  return node !== null
}
