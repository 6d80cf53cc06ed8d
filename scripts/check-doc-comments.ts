// Every exported name of every entry point, and every member of an exported namespace
// (`export * as MessageV2`), carries a doc comment: the API reference (docs/api) is generated
// from them. Names not yet documented are listed, one a line, in scripts/undocumented-exports.txt;
// the list only shrinks: a listed name that is now documented, or gone, fails the check too.
// Usage: tsx scripts/check-doc-comments.ts
import { readFileSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import ts from "typescript"

const repo = resolve(import.meta.dirname, "..")
const allowListFile = join(repo, "scripts/undocumented-exports.txt")
const entries = [
  { specifier: "agentloop-sdk", source: "src/index.ts" },
  { specifier: "agentloop-sdk/testing", source: "src/testing/index.ts" },
  { specifier: "agentloop-sdk/storage/sqlite", source: "src/storage/sqlite/index.ts" },
  { specifier: "agentloop-sdk/storage/postgres", source: "src/storage/postgres/index.ts" },
  { specifier: "agentloop-sdk/storage/durable-object", source: "src/storage/durable-object/index.ts" },
  { specifier: "agentloop-sdk/tools", source: "src/tools/index.ts" },
  { specifier: "agentloop-sdk/snapshot/git", source: "src/snapshot/git/index.ts" },
  { specifier: "agentloop-sdk/server", source: "src/server/index.ts" },
]

const program = ts.createProgram(
  entries.map((entry) => join(repo, entry.source)),
  { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true },
)
const checker = program.getTypeChecker()

const names = new Map<string, boolean>()
const places = new Map<string, string>()
for (const { specifier, source } of entries) {
  const file = program.getSourceFile(join(repo, source))
  const module = file && checker.getSymbolAtLocation(file)
  if (!module) throw new Error(`check-doc-comments: cannot read the exports of ${source}`)
  for (const symbol of checker.getExportsOfModule(module)) visit(symbol, `${specifier}:${symbol.name}`)
}

/** Records whether the name has a doc comment, then walks into a namespace's members. */
function visit(symbol: ts.Symbol, name: string): void {
  const chain = aliasChain(symbol)
  const target = chain[chain.length - 1]!
  names.set(name, chain.some(hasDocComment))
  places.set(name, place(target))
  if (!(target.flags & ts.SymbolFlags.ValueModule) || !target.declarations?.some(ts.isSourceFile)) return
  for (const member of checker.getExportsOfModule(target)) visit(member, `${name}.${member.name}`)
}

/** The symbol and every re-export it goes through: a comment on any of them documents the name. */
function aliasChain(symbol: ts.Symbol): ts.Symbol[] {
  const chain = [symbol]
  let current = symbol
  while (current.flags & ts.SymbolFlags.Alias) {
    const next = checker.getImmediateAliasedSymbol(current)
    if (!next || chain.includes(next)) break
    chain.push(next)
    current = next
  }
  return chain
}

/** Where the name is declared, for the message: `src/message/part.ts:12`. */
function place(symbol: ts.Symbol): string {
  const declaration = symbol.declarations?.[0]
  if (!declaration) return "unknown"
  const file = declaration.getSourceFile()
  const { line } = file.getLineAndCharacterOfPosition(declaration.getStart())
  return `${relative(repo, file.fileName)}:${line + 1}`
}

function hasDocComment(symbol: ts.Symbol): boolean {
  if (ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim() !== "") return true
  // `export * as X from "./x.js"`: the comment sits on the export statement.
  return (symbol.declarations ?? []).some((declaration) => {
    const statement = ts.isNamespaceExport(declaration) ? declaration.parent : undefined
    return statement !== undefined && ts.getJSDocCommentsAndTags(statement).some(hasText)
  })
}

function hasText(node: ts.Node): boolean {
  return ts.isJSDoc(node) && (ts.getTextOfJSDocComment(node.comment)?.trim() ?? "") !== ""
}

const allowed = readFileSync(allowListFile, "utf8")
  .split("\n")
  .map((line) => line.trim())
  .filter((line) => line !== "" && !line.startsWith("#"))
const undocumented = [...names].filter(([name, documented]) => !documented && !allowed.includes(name))
const stale = allowed.filter((name) => names.get(name) !== false)
for (const [name] of undocumented) console.log(`no doc comment: ${name} (${places.get(name)})`)
for (const name of stale)
  console.log(`listed in scripts/undocumented-exports.txt but documented or gone, remove it: ${name}`)
const documented = [...names.values()].filter(Boolean).length
console.log(
  `doc comments: ${documented} of ${names.size} exported names documented, ${allowed.length} listed as not yet`,
)
process.exitCode = undocumented.length === 0 && stale.length === 0 ? 0 : 1
