// What the package promises, read from the source: every export of every entry point, and
// inside each namespace (`export * as MessageV2`) every member, split into the names a consumer
// must be able to use as a type and the names that must exist at run time.
import ts from "typescript"

export type TypeName = { path: string; arity: number }
export type EntryApi = { specifier: string; types: TypeName[]; values: string[] }

export function readPublicApi(entries: { specifier: string; source: string }[]): EntryApi[] {
  const program = ts.createProgram(
    entries.map((entry) => entry.source),
    { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true },
  )
  const checker = program.getTypeChecker()
  return entries.map(({ specifier, source }) => {
    const file = program.getSourceFile(source)
    const module = file && checker.getSymbolAtLocation(file)
    if (!module) throw new Error(`public-api: cannot read the exports of ${source}`)
    const api: EntryApi = { specifier, types: [], values: [] }
    for (const symbol of checker.getExportsOfModule(module)) collect(checker, symbol, symbol.name, api)
    return api
  })
}

function collect(checker: ts.TypeChecker, symbol: ts.Symbol, path: string, api: EntryApi): void {
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol
  if (target.flags & ts.SymbolFlags.ValueModule && isSourceFile(target)) {
    api.values.push(path)
    for (const member of checker.getExportsOfModule(target)) {
      collect(checker, member, `${path}.${member.name}`, api)
    }
    return
  }
  if (target.flags & ts.SymbolFlags.Type) api.types.push({ path, arity: requiredTypeParameters(target) })
  if (target.flags & ts.SymbolFlags.Value && !isTypeOnlyExport(symbol)) api.values.push(path)
}

function isSourceFile(symbol: ts.Symbol): boolean {
  return symbol.declarations?.some((declaration) => ts.isSourceFile(declaration)) ?? false
}

function isTypeOnlyExport(symbol: ts.Symbol): boolean {
  return (
    symbol.declarations?.some(
      (declaration) =>
        ts.isExportSpecifier(declaration) && (declaration.isTypeOnly || declaration.parent.parent.isTypeOnly),
    ) ?? false
  )
}

function requiredTypeParameters(symbol: ts.Symbol): number {
  for (const declaration of symbol.declarations ?? []) {
    if (
      ts.isTypeAliasDeclaration(declaration) ||
      ts.isInterfaceDeclaration(declaration) ||
      ts.isClassDeclaration(declaration)
    ) {
      return declaration.typeParameters?.filter((parameter) => !parameter.default).length ?? 0
    }
  }
  return 0
}
