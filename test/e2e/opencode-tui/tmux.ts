// A terminal program driven through tmux: a detached session of fixed size on a socket of its
// own (so neither a user's tmux server nor a parallel test is touched), keys sent with
// send-keys, the screen read with capture-pane. Every distinct screen read is kept, so a failing
// test can leave the whole story behind (see screens.ts).
import { execFile } from "node:child_process"
import { randomUUID } from "node:crypto"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { setTimeout as delay } from "node:timers/promises"
import { promisify } from "node:util"

const run = promisify(execFile)
const SESSION = "tui"
const POLL_MS = 100

export type TmuxOptions = {
  /** The program and its arguments, run in the pane without a shell. */
  command: string[]
  cwd: string
  /** The whole environment of tmux and so of the program: nothing of this process leaks in. */
  env: Record<string, string>
  /** Default 160 columns by 45 rows. */
  width?: number
  height?: number
}

/** A screen as read, with what it was read for. */
export type Screen = { label: string; text: string }

/** What a screen is waited for: a pattern in its text, or a test of the text. */
export type ScreenMatch = RegExp | ((screen: string) => boolean)

export type Tmux = {
  /** Keys by tmux name ("Enter", "Down", "C-c") or literal single characters. */
  sendKeys(...keys: string[]): Promise<void>
  /** Text typed as is, never read as key names. */
  type(text: string): Promise<void>
  /** The visible screen, one line per row; kept in `screens` when it differs from the last one. */
  capture(label?: string): Promise<string>
  /**
   * Reads the screen until it matches, and returns it. Fails after `timeoutMs`, or as soon as
   * the program has exited, with the last screen in the message.
   */
  waitForScreen(match: ScreenMatch, options: { what: string; timeoutMs: number }): Promise<string>
  /** Every distinct screen read so far, oldest first. */
  readonly screens: readonly Screen[]
  /** Ends the tmux server, the program with it. Safe to call twice. */
  kill(): Promise<void>
}

export async function startTmux(options: TmuxOptions): Promise<Tmux> {
  const socket = `agentloop-e2e-${process.pid}-${randomUUID().slice(0, 8)}`
  const configDirectory = await mkdtemp(join(tmpdir(), "agentloop-tmux-"))
  const config = join(configDirectory, "tmux.conf")
  // remain-on-exit: a program that exits (the TUI at an error) leaves its last screen readable.
  // No status line, so the program gets every row.
  await writeFile(config, "set -g remain-on-exit on\nset -g status off\n")
  const tmux = async (...args: string[]) =>
    (await run("tmux", ["-L", socket, "-f", config, ...args], { env: options.env })).stdout
  const screens: Screen[] = []
  let killed = false

  await tmux(
    "new-session",
    "-d",
    "-s",
    SESSION,
    "-x",
    String(options.width ?? 160),
    "-y",
    String(options.height ?? 45),
    "-c",
    options.cwd,
    "--",
    ...options.command,
  )

  /** `history`: the lines scrolled off the top too, where a program's last words end up. */
  async function read(label: string, history: boolean): Promise<string> {
    const text = await tmux("capture-pane", "-p", ...(history ? ["-S", "-"] : []), "-t", SESSION)
    if (screens.at(-1)?.text !== text) screens.push({ label, text })
    return text
  }

  function capture(label = "capture"): Promise<string> {
    return read(label, false)
  }

  /** The program's exit status once it has exited, else undefined. */
  async function exitStatus(): Promise<string | undefined> {
    const [dead, status] = (
      await tmux("display-message", "-p", "-t", SESSION, "#{pane_dead} #{pane_dead_status}")
    )
      .trim()
      .split(" ")
    return dead === "1" ? (status ?? "unknown") : undefined
  }

  async function waitForScreen(match: ScreenMatch, { what, timeoutMs }: { what: string; timeoutMs: number }) {
    const matches = typeof match === "function" ? match : (screen: string) => match.test(screen)
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const screen = await capture(what)
      if (matches(screen)) return screen
      const status = await exitStatus()
      // The screen may have changed between the capture and the exit: read it once more, with
      // the history, since an error printed at exit scrolls the screen.
      if (status !== undefined) {
        const last = await read(what, true)
        if (matches(last)) return last
        throw new Error(
          `the program exited (status ${status}) while waiting for ${what}; its screen:\n${compact(last)}`,
        )
      }
      if (Date.now() > deadline)
        throw new Error(`no ${what} on screen after ${timeoutMs} ms; the screen:\n${compact(screen)}`)
      // A bound on an external process's output, not a timing assertion.
      await delay(POLL_MS)
    }
  }

  return {
    sendKeys: async (...keys) => void (await tmux("send-keys", "-t", SESSION, ...keys)),
    type: async (text) => void (await tmux("send-keys", "-t", SESSION, "-l", text)),
    capture,
    waitForScreen,
    screens,
    async kill() {
      if (killed) return
      killed = true
      await tmux("kill-server").catch(() => {})
      await rm(configDirectory, { recursive: true, force: true })
    },
  }
}

/** A screen without its blank lines, for an error message (the artifacts keep it whole). */
function compact(screen: string): string {
  return screen
    .split("\n")
    .filter((line) => line.trim() !== "")
    .join("\n")
}
