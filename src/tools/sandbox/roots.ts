import * as path from "node:path"

/** Whether `file` is one of `roots` or lies under one (all absolute, symlinks resolved). */
export function within(file: string, roots: readonly string[]): boolean {
  return roots.some((root) => {
    const relative = path.relative(root, file)
    return (
      relative === "" ||
      (relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative))
    )
  })
}
