// Bundles a Worker as wrangler does for workerd (esbuild, ESM, the conditions "workerd", "worker"
// and "browser", Node's built-in modules left to `nodejs_compat`), with the package's optional
// peers refused wherever our code imports them: a Worker's project does not install them.
import { builtinModules } from "node:module"
import { build, type Message, type Plugin } from "esbuild"

export type WorkerBundle = { code: string; errors: Message[] }

/** Bundles `entry` (a file), or the source `contents` (resolved from `resolveDir`), for workerd. */
export async function bundleForWorkerd(options: {
  entry?: string
  contents?: string
  resolveDir?: string
  /** Package names that must not be bundled from our code, each with its subpaths. */
  refuse: string[]
}): Promise<WorkerBundle> {
  const stdin =
    options.contents === undefined
      ? undefined
      : { contents: options.contents, resolveDir: options.resolveDir, loader: "ts" as const }
  try {
    const result = await build({
      ...(stdin ? { stdin } : { entryPoints: [options.entry ?? ""] }),
      bundle: true,
      write: false,
      format: "esm",
      target: "es2024",
      conditions: ["workerd", "worker", "browser"],
      logLevel: "silent",
      plugins: [nodejsCompat(), ...(options.refuse.length ? [refusePeers(options.refuse)] : [])],
    })
    return { code: result.outputFiles[0]?.text ?? "", errors: [] }
  } catch (error) {
    const failure = error as { errors?: Message[] }
    if (!failure.errors) throw error
    return { code: "", errors: failure.errors }
  }
}

/**
 * What `nodejs_compat` gives a bundle: Node's built-in modules, by their `node:` names, at run
 * time; and workerd's own modules (`cloudflare:workers`).
 */
function nodejsCompat(): Plugin {
  const bare = new Set(builtinModules)
  return {
    name: "nodejs-compat",
    setup(builder) {
      builder.onResolve({ filter: /^[a-z_/]+$|^node:|^cloudflare:/ }, ({ path }) => {
        if (path.startsWith("node:") || path.startsWith("cloudflare:")) return { path, external: true }
        return bare.has(path) ? { path: `node:${path}`, external: true } : undefined
      })
    },
  }
}

function refusePeers(names: string[]): Plugin {
  const escaped = names.map((name) => name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"))
  const filter = new RegExp(`^(${escaped.join("|")})(/.*)?$`)
  return {
    name: "refuse-optional-peers",
    setup(builder) {
      builder.onResolve({ filter }, ({ path, importer }) => {
        // A dependency of a dependency may use it (ai 6 depends on @opentelemetry/api itself).
        if (importer.includes("/node_modules/") && !importer.includes("/node_modules/agentloop-sdk/"))
          return undefined
        return { errors: [{ text: `optional peer "${path}" is imported by ${importer}` }] }
      })
    },
  }
}
