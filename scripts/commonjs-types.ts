// tsc emits one declaration tree, typed as ESM because the package is "type": "module".
// CommonJS consumers under node16/nodenext need declarations that TypeScript reads as
// CommonJS, or it reports the package as ESM masquerading as CJS. Each .d.ts gets a .d.cts
// twin whose relative imports point at the twins.
//
// ai 7 ships only ESM, and TypeScript's node16 mode cannot `require` ESM, so the twins import
// the AI SDK's types with resolution-mode "import": the same types, found the way ai 6 and 7
// both serve them, whatever the consumer's module setting.
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"

const relativeSpecifier = /((?:from|import)\s*\(?\s*)(["'])(\.{1,2}\/[^"']*?)\.js\2/g
const aiImport = /^import (?:type )?\{([^}]*)\} from "(ai(?:\/[^"]*)?)";$/gm

function toCommonJSDeclaration(source: string): string {
  return source
    .replace(relativeSpecifier, (_match, lead: string, quote: string, path: string) => {
      return `${lead}${quote}${path}.cjs${quote}`
    })
    .replace(aiImport, (_match, names: string, specifier: string) => {
      const typeNames = names.replaceAll(/\btype\s+/g, "").trim()
      return `import type { ${typeNames} } from "${specifier}" with { "resolution-mode": "import" };`
    })
}

function declarationFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".d.ts"))
    .map((entry) => join(entry.parentPath, entry.name))
}

const root = process.argv[2]
if (!root) throw new Error("usage: tsx scripts/commonjs-types.ts <declaration directory>")
const files = declarationFiles(root)
for (const file of files) {
  writeFileSync(file.replace(/\.d\.ts$/, ".d.cts"), toCommonJSDeclaration(readFileSync(file, "utf8")))
}
console.log(`commonjs-types: ${files.length} .d.cts files in ${root}`)
