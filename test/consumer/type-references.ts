import type { EntryApi } from "./public-api.js"

/**
 * A module that names every public type and value of every entry point, so the compiler
 * proves a consumer can use each one: `type T3 = E0.MessageV2.WithParts`, and
 * `type V3 = typeof E0.MessageV2.fromError` for values.
 */
export function typeReferences(api: EntryApi[]): string {
  const lines = api.map((entry, index) => `import * as E${index} from "${entry.specifier}"`)
  const names: string[] = []
  api.forEach((entry, index) => {
    for (const type of entry.types) {
      const args = type.arity > 0 ? `<${Array.from({ length: type.arity }, () => "any").join(", ")}>` : ""
      names.push(`E${index}.${type.path}${args}`)
    }
    for (const value of entry.values) names.push(`typeof E${index}.${value}`)
  })
  lines.push("", "export type PublicApi = [", ...names.map((name) => `  ${name},`), "]", "")
  return lines.join("\n")
}
