import { isNamedError } from "../index.js"
import { parseArguments, USAGE } from "./args.js"
import { UsageError } from "./errors.js"
import { type Host, type Serving, startServing } from "./serve.js"

/**
 * Runs the command line `argv` (without node and the script): the exit code when it is done
 * (help, or an error, said on `host.warn`), or the server it started, still running.
 */
export async function run(argv: string[], host: Host): Promise<number | Serving> {
  try {
    const command = parseArguments(argv, host.env)
    if (command.command === "help") {
      host.print(USAGE)
      return 0
    }
    return await startServing(command, host)
  } catch (error) {
    if (UsageError.isInstance(error)) {
      host.warn(`${error.message}\nSee agentloop-sdk --help.`)
      return 2
    }
    host.warn(describe(error))
    return 1
  }
}

// Named errors (ours, the library's) say all there is to say; others, as a module throws them, need their stack.
function describe(error: unknown): string {
  if (isNamedError(error)) return error.message
  return error instanceof Error ? (error.stack ?? error.message) : String(error)
}

/**
 * Stops `serving` on the first SIGINT or SIGTERM, then exits 0 (1 if closing failed); a second
 * signal exits at once, for when closing hangs on something.
 */
export function stopOnSignals(serving: Serving, host: Host, exit: (code: number) => never): void {
  let stopping = false
  const stop = () => {
    if (stopping) exit(130)
    stopping = true
    host.print("Stopping (Ctrl-C again to quit at once)")
    serving.close().then(
      () => exit(0),
      (error: unknown) => {
        host.warn(`Closing failed: ${describe(error)}`)
        exit(1)
      },
    )
  }
  process.on("SIGINT", stop)
  process.on("SIGTERM", stop)
  // Said only now, so that a Ctrl-C after it is always a clean stop.
  host.print("Ctrl-C stops it.")
}
