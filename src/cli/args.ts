import { isIPv4, isIPv6 } from "node:net"
import { parseArgs } from "node:util"
import { z } from "zod"
import { UsageError } from "./errors.js"

/** The environment variables the CLI reads. */
export type Env = Readonly<Record<string, string | undefined>>

/** The user and password a client must send (HTTP basic auth), as `opencode attach` does. */
export type Credentials = { username: string; password: string }

/** Serving a module (or the coding preset) on a port, with or without a password. */
export type ServeCommand = {
  command: "serve"
  /** The module path as given; undefined for the coding preset. */
  module: string | undefined
  port: number
  hostname: string
  credentials: Credentials | undefined
}

/** What the command line asks: the usage, or serving. */
export type Command = { command: "help" } | ServeCommand

export const USAGE = `Usage: agentloop-sdk serve [module] [options]

Serves an agentloop runtime over OpenCode's server API; attach OpenCode's terminal UI to it
with \`opencode attach <url>\`.

  module            a .js module (a .ts one with tsx installed) whose default export is
                    runtime options or a runtime. Without it: the coding preset in the
                    current directory, on the model that ANTHROPIC_API_KEY, OPENAI_API_KEY
                    or AGENTLOOP_BASE_URL names (AGENTLOOP_MODEL picks the model ID)

Options:
  --port <port>     the port to listen on (default 4096; 0 picks a free one)
  --hostname <host> the address to listen on (default 127.0.0.1); any other than this
                    machine's own needs a password
  --password <pw>   the password clients must send (default OPENCODE_SERVER_PASSWORD)
  --username <name> the user clients must send (default OPENCODE_SERVER_USERNAME, else opencode)
  -h, --help        print this help`

const Port = z
  .string()
  .regex(/^\d+$/, "expected a whole number")
  .transform(Number)
  .pipe(z.number().max(65_535, "expected at most 65535"))

/** Reads `argv` (without node and the script); throws UsageError when it asks for nothing runnable. */
export function parseArguments(argv: string[], env: Env): Command {
  const { values, positionals } = parse(argv)
  const [command, module, extra] = positionals
  if (values.help || command === undefined || command === "help") return { command: "help" }
  if (command !== "serve") throw new UsageError({ message: `Unknown command "${command}": try serve` })
  if (extra !== undefined) throw new UsageError({ message: `One module at most; "${extra}" is one too many` })
  const port = Port.safeParse(values.port ?? "4096")
  if (!port.success)
    throw new UsageError({ message: `--port ${values.port}: ${port.error.issues[0]?.message}` })
  const hostname = values.hostname ?? "127.0.0.1"
  const password = values.password ?? env.OPENCODE_SERVER_PASSWORD
  // An empty password is none, as in OpenCode, so no one serves an open port believing it guarded.
  const credentials = password
    ? { username: values.username || env.OPENCODE_SERVER_USERNAME || "opencode", password }
    : undefined
  if (!credentials && !isLoopback(hostname))
    throw new UsageError({
      message: `Serving on ${hostname} lets other machines in: set a password with --password or OPENCODE_SERVER_PASSWORD`,
    })
  return { command: "serve", module, port: port.data, hostname, credentials }
}

function parse(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        port: { type: "string" },
        hostname: { type: "string" },
        password: { type: "string" },
        username: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    })
  } catch (error) {
    // parseArgs says what is wrong (an unknown option, a missing value) in its message.
    throw new UsageError({ message: (error as Error).message }, { cause: error })
  }
}

function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, "$1")
  if (host === "localhost") return true
  if (isIPv4(host)) return host.startsWith("127.")
  if (!isIPv6(host)) return false
  const normal = new URL(`http://[${host}]`).hostname
  return normal === "[::1]" || normal.startsWith("[::ffff:7f")
}
