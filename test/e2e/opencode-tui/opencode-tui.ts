// Where OpenCode's terminal UI comes from, and the sealed environment it runs in: a throwaway
// home, and every switch that stops it from reaching the network (updates, the models.dev
// catalogue, plugins and skills to install, LSP servers to download, sharing).
import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

/** The version .ci/run installs; the screens this test reads are that version's. */
export const OPENCODE_VERSION = "1.18.33"

export const INSTALL_HINT =
  `install with \`npm install --prefix .ci/tools --no-save opencode-ai@${OPENCODE_VERSION}\` ` +
  "(or set OPENCODE_BIN) and Debian's tmux package; .ci/run does both"

const root = fileURLToPath(new URL("../../../", import.meta.url))

/** The opencode binary and tmux, or why the test cannot run. */
export type Requirements = { bin: string; missing?: undefined } | { bin?: undefined; missing: string }

/** OPENCODE_BIN, else the project's node_modules/.bin/opencode, else the one .ci/run installs. */
export function findRequirements(): Requirements {
  const candidates = [
    process.env.OPENCODE_BIN,
    join(root, "node_modules/.bin/opencode"),
    join(root, ".ci/tools/node_modules/.bin/opencode"),
  ].filter((path): path is string => path !== undefined && path !== "")
  const bin = candidates.find((path) => existsSync(path))
  if (bin === undefined) return { missing: `no opencode binary (looked at ${candidates.join(", ")})` }
  if (spawnSync("tmux", ["-V"], { stdio: "ignore" }).status !== 0) return { missing: "tmux is not installed" }
  return { bin }
}

/** The whole environment of the TUI, its state and configuration all under `home`. */
export function tuiEnvironment(home: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    LANG: "C.UTF-8",
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local/share"),
    XDG_STATE_HOME: join(home, ".local/state"),
    XDG_CACHE_HOME: join(home, ".cache"),
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_SHARE: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
    OPENCODE_PURE: "1",
    OPENCODE_DISABLE_EXTERNAL_SKILLS: "1",
    OPENCODE_DISABLE_CLAUDE_CODE: "1",
    OPENCODE_DISABLE_PROJECT_CONFIG: "1",
    OPENCODE_DISABLE_TERMINAL_TITLE: "1",
    OPENCODE_DISABLE_MOUSE: "1",
  }
}

/** Where the TUI writes its logs under `home` (XDG_DATA_HOME/opencode/log). */
export function tuiLogDirectory(home: string): string {
  return join(home, ".local/share/opencode/log")
}
