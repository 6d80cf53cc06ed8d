// The screens a run leaves behind, as CI artifacts: every one when the test fails (with the
// requests our server answered and the TUI's own logs), the last one when it passes.
import { cp, mkdir, rm, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type { Screen } from "./tmux.js"

/** $AGENTLOOP_ARTIFACTS/opencode-tui, else test-artifacts/opencode-tui at the repository root. */
export function artifactDirectory(): string {
  const root =
    process.env.AGENTLOOP_ARTIFACTS || fileURLToPath(new URL("../../../test-artifacts/", import.meta.url))
  return join(root, "opencode-tui")
}

/** Empties the directory, so that what it holds is this run's only. */
export async function resetArtifacts(directory: string): Promise<void> {
  await rm(directory, { recursive: true, force: true })
  await mkdir(directory, { recursive: true })
}

/** The last screen, as final.txt. */
export async function saveFinalScreen(directory: string, screens: readonly Screen[]): Promise<void> {
  const last = screens.at(-1)
  if (last) await writeFile(join(directory, "final.txt"), last.text)
}

export type FailureRecord = {
  screens: readonly Screen[]
  /** One line per request our server answered: method, path and query, status. */
  requests: readonly string[]
  /** The TUI's log directory, copied as logs/ when it exists. */
  logDirectory: string
}

/** Every screen as NNN-<what it was read for>.txt, requests.txt and the TUI's logs. */
export async function saveFailure(directory: string, record: FailureRecord): Promise<void> {
  await Promise.all(
    record.screens.map(({ label, text }, index) =>
      writeFile(join(directory, `${String(index + 1).padStart(3, "0")}-${slug(label)}.txt`), text),
    ),
  )
  await writeFile(join(directory, "requests.txt"), `${record.requests.join("\n")}\n`)
  await cp(record.logDirectory, join(directory, "logs"), { recursive: true }).catch(() => {})
}

function slug(label: string): string {
  return label.replace(/[^a-zA-Z0-9]+/g, "-").replace(/^-|-$/g, "") || "screen"
}
