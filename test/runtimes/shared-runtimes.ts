import { execFileSync } from "node:child_process"

/** How the check runs a runtime: a script, the testing kit, and (Deno) a run with fewer permissions. */
export type Runtime = {
  name: "bun" | "deno"
  version: string
  /** The command line that runs a script with these arguments; `native`: it loads a Node-API addon (better-sqlite3). */
  run: (script: string[], native?: "native") => string[]
  /** The testing kit under the runtime's runner. */
  kit: string[]
  /** A run without the permissions to start processes or listen (Deno only). */
  denied?: string[]
}

/**
 * What a program of this package needs from Deno: files (its project, the temp folder, the
 * SQLite file), the environment, the host name (the AI SDK's gateway reads it at import),
 * processes (bash, git, bwrap) and the network (the server, PostgreSQL, a real model).
 * `--sloppy-imports` lets the examples' `./choose-model.js` find `choose-model.ts`, as tsx does.
 */
export const DENO_FLAGS = [
  "--sloppy-imports",
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-sys",
  "--allow-run",
  "--allow-net",
]

/** The runtimes the environment names (BUN_BIN, DENO_BIN), among `only` when given, and those it does not. */
export function runtimes(
  env: NodeJS.ProcessEnv,
  only: string[],
): { available: Runtime[]; missing: { name: string; variable: string }[] } {
  const available: Runtime[] = []
  const missing: { name: string; variable: string }[] = []
  const wanted = (name: string) => only.length === 0 || only.includes(name)
  const bun = env.BUN_BIN
  if (wanted("bun") && !bun) missing.push({ name: "bun", variable: "BUN_BIN" })
  if (wanted("bun") && bun)
    available.push({
      name: "bun",
      version: versionOf(bun, /^(\S+)/),
      run: (script) => [bun, ...script],
      // A path starting with ./ runs a file that Bun's own name patterns (*.test.ts) would not pick up.
      kit: [bun, "test", "--timeout", "30000", "./bun/kit.bun-test.ts"],
    })
  const deno = env.DENO_BIN
  if (wanted("deno") && !deno) missing.push({ name: "deno", variable: "DENO_BIN" })
  if (wanted("deno") && deno)
    available.push({
      name: "deno",
      version: versionOf(deno, /deno (\S+)/),
      // Deno loads a Node-API addon (better-sqlite3 13) only with --allow-ffi.
      run: (script, native) => [deno, "run", ...DENO_FLAGS, ...(native ? ["--allow-ffi"] : []), ...script],
      kit: [deno, "run", ...DENO_FLAGS, "deno/kit.ts"],
      denied: [
        deno,
        "run",
        ...DENO_FLAGS.filter((flag) => flag !== "--allow-run" && flag !== "--allow-net"),
        "deno/denied.ts",
      ],
    })
  return { available, missing }
}

function versionOf(binary: string, pattern: RegExp): string {
  const output = execFileSync(binary, ["--version"], { encoding: "utf8", timeout: 30_000 })
  return pattern.exec(output)?.[1] ?? output.trim()
}
