import { DEFAULT_PASS_ENV } from "./options.js"

/** Each command's home: an empty folder on the sandbox's private /tmp, never the host user's. */
export const SANDBOX_HOME = "/tmp/home"

const SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"

export type EnvInput = {
  /** The host's environment, read only for the names in `passEnv`. */
  host: Readonly<Record<string, string | undefined>>
  /** Folders the sandbox mounts (destinations): PATH keeps only the entries under one of them. */
  visible: readonly string[]
  /** Host variables passed through; default `DEFAULT_PASS_ENV`. */
  passEnv?: readonly string[]
  /** The host's `env` option. */
  set?: Readonly<Record<string, string>>
  /** The call's own `ExecOptions.env`. */
  exec?: Readonly<Record<string, string>>
}

/**
 * A command's whole environment, built from nothing: a PATH, the home, the host variables the
 * allow-list names, then the host's and the call's variables. Nothing else of the host's
 * environment is read, so a key or token it holds cannot reach a command by accident.
 */
export function sandboxEnv(input: EnvInput): Record<string, string> {
  const names = input.passEnv ?? DEFAULT_PASS_ENV
  const env: Record<string, string> = { PATH: SYSTEM_PATH }
  for (const name of names) {
    const value = input.host[name]
    if (value === undefined) continue
    env[name] = name === "PATH" ? visiblePath(value, input.visible) || SYSTEM_PATH : value
  }
  return { ...env, HOME: SANDBOX_HOME, ...input.set, ...input.exec }
}

/** The PATH entries a command can reach: a folder outside every mount would only fail, or mislead. */
function visiblePath(value: string, visible: readonly string[]): string {
  return value
    .split(":")
    .filter((entry) => visible.some((mount) => entry === mount || entry.startsWith(`${mount}/`)))
    .join(":")
}
