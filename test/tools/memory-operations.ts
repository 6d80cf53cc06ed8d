import * as path from "node:path"
import type { DirectoryEntry, Operations } from "../../src/tools/index.js"

/**
 * Operations on an in-memory file tree (absolute POSIX paths), recording every call: proof that
 * the tools do their work through the port and nowhere else.
 */
export function memoryOperations(initial: Record<string, string> = {}) {
  const files = new Map<string, { data: Uint8Array; mtimeMs: number }>()
  const calls: string[] = []
  let clock = 1_000
  const put = (file: string, data: Uint8Array | string) =>
    files.set(file, {
      data: typeof data === "string" ? new TextEncoder().encode(data) : data,
      mtimeMs: clock++,
    })
  for (const [file, content] of Object.entries(initial)) put(file, content)
  const isDirectory = (dir: string) =>
    dir === "/" || [...files.keys()].some((file) => file.startsWith(`${dir}/`))

  const operations: Operations = {
    async readFile(file) {
      calls.push(`readFile ${file}`)
      const entry = files.get(file)
      if (!entry) throw new Error(`ENOENT: ${file}`)
      return entry.data
    },
    async writeFile(file, data) {
      calls.push(`writeFile ${file}`)
      put(file, data)
    },
    async stat(file) {
      calls.push(`stat ${file}`)
      const entry = files.get(file)
      if (entry) return { type: "file", size: entry.data.length, mtimeMs: entry.mtimeMs }
      return isDirectory(file) ? { type: "directory", size: 0, mtimeMs: 0 } : undefined
    },
    async realpath(file) {
      return file
    },
    async list(dir) {
      calls.push(`list ${dir}`)
      const names = new Map<string, DirectoryEntry["type"]>()
      for (const file of files.keys()) {
        if (!file.startsWith(`${dir === "/" ? "" : dir}/`)) continue
        const [name, ...rest] = file.slice(dir.length + 1).split("/")
        names.set(name!, rest.length > 0 ? "directory" : "file")
      }
      if (names.size === 0 && !isDirectory(dir)) throw new Error(`ENOENT: ${dir}`)
      return [...names].map(([name, type]) => ({ name, type }))
    },
    async glob(pattern, options) {
      calls.push(`glob ${pattern}`)
      const regexp = globToRegExp(pattern)
      const found = [...files.keys()]
        .filter((file) => file.startsWith(`${options.cwd}/`))
        .map((file) => path.posix.relative(options.cwd, file))
        .filter((file) => regexp.test(file))
        .filter((file) => !(options.ignore ?? []).some((ignore) => globToRegExp(ignore).test(file)))
      return found.slice(0, options.limit)
    },
    async exec(command) {
      calls.push(`exec ${command}`)
      return { exitCode: 127, timedOut: false, aborted: false }
    },
  }
  return { operations, files, calls, text: (file: string) => new TextDecoder().decode(files.get(file)?.data) }
}

/** Enough glob for the tests: **, *, ? and {a,b}. */
function globToRegExp(glob: string): RegExp {
  let source = ""
  for (let index = 0; index < glob.length; index++) {
    const char = glob[index]!
    if (glob.startsWith("**/", index)) {
      source += "(?:.*/)?"
      index += 2
    } else if (glob.startsWith("/**", index) && index + 3 === glob.length) {
      source += "(?:/.*)?"
      index += 2
    } else if (char === "*") source += "[^/]*"
    else if (char === "?") source += "[^/]"
    else if (char === "{") source += "(?:"
    else if (char === "}") source += ")"
    else if (char === ",") source += "|"
    else source += char.replace(/[.+^$()|[\]\\]/g, "\\$&")
  }
  return new RegExp(`^${source}$`)
}
