import { createRequire } from "node:module"
import { requirePackages, SHELL_PARSER_PACKAGES } from "../packages.js"
import { ShellParserError } from "./errors.js"
import { type Parse, scriptOf } from "./script.js"

/**
 * The bash grammar (tree-sitter-bash, run by web-tree-sitter), loaded on first use and kept by
 * whoever holds the returned function, so nothing is loaded until a command runs and nothing
 * lives at module level. Its packages are looked for at once (found, not loaded), so that a host
 * without them learns it when it sets up the tools, not from the model's first command.
 */
export function createShellParser(): () => Promise<Parse> {
  requirePackages("the bash tool", SHELL_PARSER_PACKAGES)
  let loading: Promise<Parse> | undefined
  return () => {
    loading ??= load().catch((error: unknown) => {
      // A failed load is not cached: a later call tries again.
      loading = undefined
      throw new ShellParserError(
        { message: `The bash parser could not be loaded: ${messageOf(error)}` },
        { cause: error },
      )
    })
    return loading
  }
}

async function load(): Promise<Parse> {
  const { Language, Parser } = await import("web-tree-sitter")
  await Parser.init()
  // import.meta.url is shimmed by tsup in the CommonJS build, so this resolves in both builds.
  const wasm = createRequire(import.meta.url).resolve("tree-sitter-bash/tree-sitter-bash.wasm")
  const parser = new Parser()
  parser.setLanguage(await Language.load(wasm))
  return (text) => {
    const tree = parser.parse(text)
    if (!tree) return { commands: [], redirects: [], complete: false }
    try {
      return scriptOf(tree.rootNode)
    } finally {
      // Trees live in the WebAssembly heap, not in JavaScript's: free each one.
      tree.delete()
    }
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
