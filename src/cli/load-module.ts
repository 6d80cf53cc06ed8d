import { existsSync } from "node:fs"
import { resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { ModuleLoadError } from "./errors.js"
import { missingPackage } from "./missing-package.js"

const typeScript = /\.[cm]?tsx?$/

/**
 * The default export of the module at `path` (relative to `cwd`). A TypeScript module loads
 * through tsx (an optional package the project may have) on Node, whose own type stripping
 * leaves out what tsx handles (enums, `.js` specifiers of `.ts` files); Bun and Deno load it themselves.
 * Throws ModuleLoadError when there is no such file or tsx is not installed; an error the module
 * throws while loading comes out as it is.
 */
export async function loadDefaultExport(path: string, cwd: string): Promise<unknown> {
  const file = resolve(cwd, path)
  if (!existsSync(file)) throw new ModuleLoadError({ message: `No module at ${file}`, path: file })
  if (typeScript.test(file) && !("bun" in process.versions || "deno" in process.versions))
    await registerTsx(file)
  const module = (await import(pathToFileURL(file).href)) as { default?: unknown }
  return module.default
}

async function registerTsx(file: string): Promise<void> {
  let api: typeof import("tsx/esm/api")
  try {
    api = await import("tsx/esm/api")
  } catch (error) {
    if (!missingPackage(error, ["tsx"])) throw error
    throw new ModuleLoadError({
      message: `${file} is TypeScript: install tsx to serve a .ts module (npm install -D tsx), or build it to .js`,
      path: file,
    })
  }
  api.register()
}
