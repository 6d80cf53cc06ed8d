/**
 * Directories the search and listing tools skip: dependencies, build output, caches and VCS
 * data, which would drown a project's own files. A glob or grep pattern that names one of them
 * still reaches it.
 */
export const IGNORED_DIRECTORIES = [
  "node_modules",
  ".git",
  ".hg",
  ".svn",
  "dist",
  "build",
  "target",
  ".venv",
  "venv",
  "__pycache__",
  ".pytest_cache",
  ".mypy_cache",
  ".tox",
  ".idea",
  ".vscode",
  ".next",
  ".nuxt",
  ".turbo",
  ".cache",
  ".gradle",
  "coverage",
  ".nyc_output",
] as const

/** The ignored directories, except those the pattern itself names (a search inside node_modules stays possible). */
export function ignoredDirectories(pattern = ""): string[] {
  const named = new Set(pattern.split(/[/\\{},]/))
  return IGNORED_DIRECTORIES.filter((name) => !named.has(name))
}

/** Glob patterns skipping `ignoredDirectories(pattern)`. */
export function ignoreGlobs(pattern = ""): string[] {
  return ignoredDirectories(pattern).map((name) => `**/${name}/**`)
}
