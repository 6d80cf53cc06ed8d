import { createRequire } from "node:module"
import { MissingPackageError } from "./errors.js"

/** An optional peer dependency: its name, and a file of it that resolves only when it is installed. */
export type OptionalPackage = { name: string; entry: string }

export const SHELL_PARSER_PACKAGES: readonly OptionalPackage[] = [
  { name: "web-tree-sitter", entry: "web-tree-sitter" },
  { name: "tree-sitter-bash", entry: "tree-sitter-bash/tree-sitter-bash.wasm" },
]

export const GLOB_PACKAGES: readonly OptionalPackage[] = [{ name: "tinyglobby", entry: "tinyglobby" }]

export const YAML_PACKAGES: readonly OptionalPackage[] = [{ name: "yaml", entry: "yaml" }]

/**
 * Throws MissingPackageError naming what `feature` lacks, with the command that installs all of
 * `packages`, unless each of them resolves. Resolving finds a package without loading it, so
 * this can run when the feature is set up; a package present but broken is left to its loader.
 */
export function requirePackages(feature: string, packages: readonly OptionalPackage[]): void {
  const require = createRequire(import.meta.url)
  const missing = packages.filter(({ entry }) => {
    try {
      require.resolve(entry)
      return false
    } catch (error) {
      return (error as { code?: unknown }).code === "MODULE_NOT_FOUND"
    }
  })
  if (missing.length === 0) return
  throw MissingPackageError.of(
    feature,
    missing.map(({ name }) => name),
    packages.map(({ name }) => name),
  )
}
