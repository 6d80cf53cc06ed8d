import type { Runtime } from "../index.js"
import { MissingPackageError } from "../tools/index.js"
import type { Env, ServeCommand } from "./args.js"
import { BASIC_CHALLENGE, basicAuth } from "./basic-auth.js"
import { codingRuntime } from "./default-runtime.js"
import { UsageError } from "./errors.js"
import { loadDefaultExport } from "./load-module.js"
import { missingPackage } from "./missing-package.js"
import { runtimeOf } from "./module-runtime.js"

/** What the CLI reads and writes, passed in rather than taken from `process`. */
export type Host = { env: Env; cwd: string; print(line: string): void; warn(line: string): void }

/** A runtime being served: its URL, and `close()`, which stops the server, then closes the runtime. */
export type Serving = { url: string; close(): Promise<void> }

// Optional peer dependencies of agentloop-sdk, needed by its server.
const SERVER_PACKAGES = ["hono", "hono-openapi", "@hono/node-server"]

/**
 * Serves what `command` names (a module's runtime, or the coding preset) and says how to attach
 * to it. A runtime the module made is closed with the server, as one the CLI made.
 */
export async function startServing(command: ServeCommand, host: Host): Promise<Serving> {
  const { runtime, label, warning } = command.module
    ? {
        runtime: runtimeOf(await loadDefaultExport(command.module, host.cwd), command.module),
        label: command.module,
        warning: undefined,
      }
    : await codingRuntime(host.cwd, host.env)
  const server = await listen(runtime, command).catch(async (error: unknown) => {
    await runtime.close()
    throw error
  })
  host.print(`Serving ${label} at ${server.url}`)
  if (warning) host.print(warning)
  host.print(`Attach OpenCode's terminal UI: opencode attach ${server.url}`)
  if (command.credentials) host.print(passwordHint(command.credentials.username))
  return {
    url: server.url,
    async close() {
      await server.close()
      await runtime.close()
    },
  }
}

async function listen(runtime: Runtime, command: ServeCommand) {
  try {
    const { createServer, serve } = await import("../server/index.js")
    const authorize = command.credentials
      ? { authorize: basicAuth(command.credentials), challenge: BASIC_CHALLENGE }
      : {}
    return await serve(createServer(runtime, authorize), { port: command.port, hostname: command.hostname })
  } catch (error) {
    const missing = missingPackage(error, SERVER_PACKAGES)
    if (missing) throw MissingPackageError.of("agentloop-sdk serve", [missing], SERVER_PACKAGES)
    if ((error as { code?: unknown }).code !== "EADDRINUSE") throw error
    throw new UsageError(
      { message: `Port ${command.port} on ${command.hostname} is in use: pick another with --port` },
      { cause: error },
    )
  }
}

function passwordHint(username: string): string {
  const user = username === "opencode" ? "" : ` and --username ${username}`
  return `It asks for the password: opencode attach sends OPENCODE_SERVER_PASSWORD, or give it --password${user}.`
}
