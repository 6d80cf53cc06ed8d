import { spawn } from "node:child_process"
import { resolve } from "node:path"

/** The user the attack tests run an agent as when they run as root: nobody. */
export const NOBODY = 65534

/**
 * Runs a test agent script (`tsx`) in a process of its own, as the test's own user or, when the
 * test runs as root, as nobody (setpriv), with `home` as HOME and nothing else of the test's
 * environment but PATH. `inherit` hands the process an open descriptor at that number, as a
 * parent that leaked it would. Resolves with the JSON of its last line of output; fails with
 * its exit code and error output otherwise (bounded: killed after 90 s).
 */
export function runAgentProcess<Report>(
  script: string,
  args: readonly string[],
  options: { as: "self" | "nobody"; home: string; inherit?: { fd: number; at: number } },
): Promise<Report> {
  const node = [process.execPath, "--import", "tsx", resolve(script), ...args]
  const command =
    options.as === "nobody" && process.getuid?.() === 0
      ? ["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", ...node]
      : node
  const { inherit } = options
  const extra = inherit ? [...Array<"ignore">(inherit.at - 3).fill("ignore"), inherit.fd] : []
  return new Promise((done, fail) => {
    const child = spawn(command[0]!, command.slice(1), {
      cwd: process.cwd(),
      env: { PATH: process.env.PATH, HOME: options.home },
      stdio: ["ignore", "pipe", "pipe", ...extra],
      timeout: 90_000,
    })
    let stdout = ""
    let stderr = ""
    child.stdout!.on("data", (chunk) => {
      stdout += chunk
    })
    child.stderr!.on("data", (chunk) => {
      stderr += chunk
    })
    child.on("error", fail)
    child.on("close", (code) => {
      const line = stdout.trim().split("\n").at(-1) ?? ""
      if (code === 0 && line.startsWith("{")) done(JSON.parse(line) as Report)
      else fail(new Error(`${script} exited with ${code}: ${stderr.slice(-2000)}`))
    })
  })
}
