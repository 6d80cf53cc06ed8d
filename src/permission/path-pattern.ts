/**
 * A file path as the permission rules see it, resolved against a directory by string work alone
 * (the core reads no file system, so symlinks are not followed: the coding tools on
 * `agentloop/tools` do that through their operations).
 */
export type PathTarget = {
  /** The path made absolute against the directory, with `.`, `..`, `//` and `\` resolved. */
  absolute: string
  /** Whether it lies within the directory. */
  inside: boolean
  /** Relative to the directory with `/` (`.` for the directory itself) when inside, else `absolute`. */
  pattern: string
}

/**
 * The pattern a rule sees for `path`, as the coding tools ask: relative to `directory` with `/`
 * separators when inside it, absolute when outside, so `src/../../etc/shadow` is never `src/*`.
 */
export function pathPattern(path: string, directory: string): string {
  return resolvePath(path, directory).pattern
}

export function resolvePath(path: string, directory: string): PathTarget {
  const base = normalise(slashes(directory))
  const file = slashes(path)
  const absolute = normalise(rootOf(file) !== undefined || base === "" ? file : `${base}/${file}`)
  const relative = relativeTo(absolute, base)
  return { absolute, inside: relative !== undefined, pattern: relative ?? absolute }
}

/**
 * What `external_directory` is asked with for a path outside the directory: its folder with
 * `/*`, as the coding tools (and OpenCode) ask, so a rule `/etc/*` covers every file in /etc.
 */
export function externalPattern(absolute: string): string {
  const cut = absolute.lastIndexOf("/")
  const folder = cut < 0 ? "." : absolute.slice(0, cut + 1)
  return folder.endsWith("/") ? `${folder}*` : `${folder}/*`
}

/** The matcher counts backslashes as `/` (Permission.match): so does the resolution. */
function slashes(path: string): string {
  return path.replaceAll("\\", "/")
}

/** The root of an absolute path (`/`, or a drive such as `C:/`); undefined for a relative one. */
function rootOf(path: string): string | undefined {
  const drive = /^[A-Za-z]:\//.exec(path)
  if (drive) return drive[0]
  return path.startsWith("/") ? "/" : undefined
}

/** Resolves `.`, `..` and empty segments; `..` stops at the root, and is kept at the start of a relative path. */
function normalise(path: string): string {
  const root = rootOf(path) ?? ""
  const segments: string[] = []
  for (const segment of path.slice(root.length).split("/")) {
    if (segment === "" || segment === ".") continue
    if (segment !== "..") segments.push(segment)
    else if (segments.length > 0 && segments.at(-1) !== "..") segments.pop()
    else if (root === "") segments.push("..")
  }
  return root + segments.join("/")
}

/** `path` relative to `directory` (both normalised), or undefined when it lies outside. */
function relativeTo(path: string, directory: string): string | undefined {
  if (path === directory) return "."
  const prefix = directory === "" || directory.endsWith("/") ? directory : `${directory}/`
  if (!path.startsWith(prefix)) return undefined
  const rest = path.slice(prefix.length)
  if (rest === "" || rest === ".." || rest.startsWith("../") || rootOf(rest) !== undefined) return undefined
  return rest
}
