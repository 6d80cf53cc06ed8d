// The path of a prompt, checked: the walk written in docs/architecture.md ("The path of a
// prompt", the fenced `walk` block) from runtime.session.prompt to the model's doStream and to
// the storage write passes through at most MAX_FILES files, and every hop is real: each named
// function exists in its file, and a call inside it resolves (type checker, aliases followed)
// to the next hop. Where the next function is injected (a port), `seam: file` names the file
// that wires it, which must refer to it. The model branch ends at a `.doStream(` call, the write
// branch at a call of the Storage port's `write`. The list is declared by hand: this proves the
// hops are real and the count honest, not that no other file could be opened.
import { readFileSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import ts from "typescript"

const MAX_FILES = 8
const root = resolve("src")
const docs = resolve("docs/architecture.md")

type Hop = { file: string; fn: string; seam?: string; line: number }
type Branch = { name: "model" | "write"; hops: Hop[] }

/** The `walk` block: `model:` and `write:` open a branch, then one `file#function [seam: file]` per line. */
function parseWalk(markdown: string): Branch[] {
  const section = markdown.split(/^## /m).find((part) => part.startsWith("The path of a prompt"))
  const block = section?.match(/^```walk\n([\s\S]*?)^```/m)?.[1]
  if (!block) throw new Error(`${docs}: no \`\`\`walk block under "## The path of a prompt"`)
  const branches: Branch[] = []
  for (const [index, raw] of block.split("\n").entries()) {
    const text = raw.replace(/\s+\/\/.*$/, "").trim()
    if (text === "") continue
    const header = text.match(/^(model|write):$/)
    if (header) {
      branches.push({ name: header[1] as Branch["name"], hops: [] })
      continue
    }
    const hop = text.match(/^(?:->\s*)?([\w./-]+\.ts)#(\w+)(?:\s+seam:\s*([\w./-]+\.ts))?$/)
    const branch = branches.at(-1)
    if (!hop || !branch)
      throw new Error(`walk block line ${index + 1}: expected "file#function [seam: file]": ${raw}`)
    branch.hops.push({ file: hop[1]!, fn: hop[2]!, ...(hop[3] ? { seam: hop[3] } : {}), line: index + 1 })
  }
  for (const name of ["model", "write"] as const)
    if (!branches.some((branch) => branch.name === name)) throw new Error(`walk block: no "${name}:" branch`)
  return branches
}

function createChecker() {
  const config = ts.getParsedCommandLineOfConfigFile(
    resolve("tsconfig.json"),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"))
      },
    },
  )!
  const program = ts.createProgram({
    rootNames: config.fileNames.filter((file) => resolve(file).startsWith(root)),
    options: { ...config.options, noEmit: true },
  })
  return { program, checker: program.getTypeChecker() }
}

const { program, checker } = createChecker()
const sourceOf = (file: string) => program.getSourceFile(join(root, file))

/** The name a function goes by: its own, or the variable or property it is assigned to. */
function nameOf(node: ts.Node): string | undefined {
  const named = (node as { name?: ts.Node }).name
  if (named && (ts.isIdentifier(named) || ts.isPrivateIdentifier(named))) return named.text
  const parent = node.parent
  if (
    parent &&
    (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) &&
    ts.isIdentifier(parent.name)
  )
    return parent.name.text
  return undefined
}

/** Every function of the file going by `fn` (a declaration, and a property that forwards to it). */
function functionsNamed(file: ts.SourceFile, fn: string): ts.Node[] {
  const found: ts.Node[] = []
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body && nameOf(node) === fn) found.push(node)
    ts.forEachChild(node, visit)
  }
  visit(file)
  return found
}

/** The declarations an identifier resolves to: aliases (imports) and `{ name }` shorthands followed. */
function declarationsOf(identifier: ts.Identifier): ts.Declaration[] {
  let symbol = checker.getSymbolAtLocation(identifier)
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol)
  return (symbol?.declarations ?? []).flatMap((declaration) =>
    ts.isShorthandPropertyAssignment(declaration)
      ? (checker.getShorthandAssignmentValueSymbol(declaration)?.declarations ?? [declaration])
      : [declaration],
  )
}

/**
 * Whether something inside `node` resolves to a declaration named `fn` in `file`: with `calls`,
 * only the callee of a call counts (`fn(` or `x.fn(`), else any reference (an import, a wiring).
 */
function refersTo(node: ts.Node, file: string, fn: string, calls = false): boolean {
  let hit = false
  const visit = (child: ts.Node) => {
    if (hit) return
    const callee = calls ? calleeOf(child) : ts.isIdentifier(child) ? child : undefined
    if (callee && declarationsOf(callee).some((d) => declaredAs(d, file, fn))) hit = true
    ts.forEachChild(child, visit)
  }
  visit(node)
  return hit
}

/** The name a call calls: `f` of `f(...)` and of `x.f(...)`. */
function calleeOf(node: ts.Node): ts.Identifier | undefined {
  if (!ts.isCallExpression(node)) return undefined
  const { expression } = node
  if (ts.isIdentifier(expression)) return expression
  if (ts.isPropertyAccessExpression(expression) && ts.isIdentifier(expression.name)) return expression.name
  return undefined
}

function declaredAs(declaration: ts.Declaration, file: string, fn: string): boolean {
  const at = relative(root, declaration.getSourceFile().fileName)
  return at === file && nameOf(declaration) === fn
}

/** Whether a call inside `node` has the callee `<something>.<method>(`, resolved (when `port`) to that file. */
function callsMethod(node: ts.Node, method: string, port?: string): boolean {
  let hit = false
  const visit = (child: ts.Node) => {
    if (hit) return
    if (
      ts.isCallExpression(child) &&
      ts.isPropertyAccessExpression(child.expression) &&
      ts.isIdentifier(child.expression.name) &&
      child.expression.name.text === method &&
      (port === undefined || declarationsOf(child.expression.name).some((d) => declaredAs(d, port, method)))
    )
      hit = true
    else ts.forEachChild(child, visit)
  }
  visit(node)
  return hit
}

function checkBranch(branch: Branch): string[] {
  const problems: string[] = []
  const where = (hop: Hop) => `docs/architecture.md walk line ${hop.line}: ${hop.file}#${hop.fn}`
  for (const [index, hop] of branch.hops.entries()) {
    const file = sourceOf(hop.file)
    const functions = file ? functionsNamed(file, hop.fn) : []
    if (functions.length === 0) {
      problems.push(`${where(hop)}: ${file ? `no function ${hop.fn}` : "no such file in src/"}`)
      continue
    }
    const next = branch.hops[index + 1]
    if (!next) {
      const ends =
        branch.name === "model"
          ? functions.some((node) => callsMethod(node, "doStream"))
          : functions.some((node) => callsMethod(node, "write", "storage/port.ts"))
      if (!ends)
        problems.push(
          `${where(hop)}: the ${branch.name} branch must end at ${branch.name === "model" ? "a .doStream( call" : "a call of Storage.write (storage/port.ts)"}`,
        )
      continue
    }
    if (hop.seam) {
      const wiring = sourceOf(hop.seam)
      if (!wiring || !refersTo(wiring, next.file, next.fn))
        problems.push(`${where(hop)}: seam ${hop.seam} does not wire ${next.file}#${next.fn}`)
    } else if (!functions.some((node) => refersTo(node, next.file, next.fn, true)))
      problems.push(`${where(hop)} does not call ${next.file}#${next.fn}`)
  }
  return problems
}

const branches = parseWalk(readFileSync(docs, "utf8"))
const problems = branches.flatMap(checkBranch)
const files = [...new Set(branches.flatMap((branch) => branch.hops.map((hop) => hop.file)))]
for (const branch of branches)
  console.log(`${branch.name}: ${[...new Set(branch.hops.map((hop) => hop.file))].join(" -> ")}`)
console.log(
  `walk: ${files.length} files (at most ${MAX_FILES}), ${branches.reduce((n, b) => n + b.hops.length, 0)} hops`,
)
if (files.length > MAX_FILES)
  problems.push(`the walk passes through ${files.length} files, more than ${MAX_FILES}`)
for (const problem of problems) console.log(problem)
process.exitCode = problems.length === 0 ? 0 : 1
