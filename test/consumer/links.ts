import { existsSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"

const markdownLink = /\]\(([^)\s]+)\)/g

/** Relative links in the package's Markdown that point at nothing inside the package. */
export function brokenLinks(packageDirectory: string): string[] {
  const files = readdirSync(packageDirectory, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".md") && !file.startsWith("node_modules"))
    .map((file) => join(packageDirectory, file))
  const broken: string[] = []
  for (const file of files) {
    for (const [, target] of readFileSync(file, "utf8").matchAll(markdownLink)) {
      if (!target || /^[a-z]+:/i.test(target) || target.startsWith("#")) continue
      const path = resolve(dirname(file), target.split("#")[0] ?? "")
      const inside = !relative(packageDirectory, path).startsWith("..")
      if (!inside || !existsSync(path)) broken.push(`${relative(packageDirectory, file)}: ${target}`)
    }
  }
  return broken
}
