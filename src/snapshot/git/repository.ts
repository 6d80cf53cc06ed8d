import { createHash, randomBytes } from "node:crypto"
import { mkdir, realpath, rename, rm, stat, writeFile } from "node:fs/promises"
import os from "node:os"
import path from "node:path"
import { SnapshotUnavailableError } from "../errors.js"
import { resolveExclusions } from "./exclusions.js"
import { GitCommandError } from "./git-command-error.js"
import { type GitContext, gitEnvironment, runBareGit } from "./git-process.js"

/**
 * Attributes for every path, with the highest precedence git has: no end-of-line conversion,
 * clean/smudge filter or keyword expansion from the work tree's `.gitattributes`, so a file
 * comes back byte for byte as it was recorded.
 */
const ATTRIBUTES = "* -text -eol -filter -ident -working-tree-encoding\n"

/** `$XDG_DATA_HOME/agentloop/snapshot`, else `~/.local/share/agentloop/snapshot`. */
export function defaultDataDir(env: NodeJS.ProcessEnv): string {
  const dataHome = env.XDG_DATA_HOME || path.join(os.homedir(), ".local", "share")
  return path.join(dataHome, "agentloop", "snapshot")
}

/**
 * The git dir for `directory` inside `dataDir`, created on first use: one per work tree,
 * named by a hash of its real path, so that many directories share one data dir and two
 * spellings of one directory share one history.
 */
export async function openRepository(input: {
  directory: string
  dataDir: string
  exclude: readonly string[]
  binary: string
  env: NodeJS.ProcessEnv
}): Promise<GitContext> {
  const workTree = await realDirectory(input.directory)
  // Before anything is written: a data dir that is the work tree itself must not get a git dir.
  const exclusions = await resolveExclusions({ ...input, workTree })
  const name = createHash("sha256").update(workTree).digest("hex").slice(0, 32)
  const gitDir = path.join(input.dataDir, name)
  const env = gitEnvironment(input.env)
  if (!(await exists(gitDir)))
    await initialise({ gitDir, workTree, dataDir: input.dataDir, binary: input.binary, env })
  return { binary: input.binary, gitDir, workTree, directory: input.directory, exclusions, env }
}

async function realDirectory(directory: string): Promise<string> {
  try {
    const real = await realpath(directory)
    if ((await stat(real)).isDirectory()) return real
  } catch (error) {
    throw unavailable(`Cannot read directory ${directory}`, error)
  }
  throw new SnapshotUnavailableError({ message: `Not a directory: ${directory}` })
}

/**
 * Initialises into a temporary name and renames it into place, so that the git dir appears
 * whole or not at all: another process initialising the same one at the same moment either
 * wins the rename (and ours is dropped) or loses it; neither sees a half-made git dir.
 */
async function initialise(input: {
  gitDir: string
  workTree: string
  dataDir: string
  binary: string
  env: NodeJS.ProcessEnv
}): Promise<void> {
  const { gitDir, dataDir } = input
  await mkdir(dataDir, { recursive: true }).catch((error: unknown) => {
    throw unavailable(`Cannot write snapshot data directory ${dataDir}`, error)
  })
  const temporary = `${gitDir}.init-${randomBytes(6).toString("hex")}`
  try {
    await runBareGit(
      input.binary,
      ["init", "--quiet", "--bare", "--template=", temporary],
      dataDir,
      input.env,
    )
    await mkdir(path.join(temporary, "info"), { recursive: true })
    await writeFile(path.join(temporary, "info", "attributes"), ATTRIBUTES)
    // For a person browsing the data dir: which directory this history belongs to.
    await writeFile(path.join(temporary, "description"), `agentloop snapshots of ${input.workTree}\n`)
    await rename(temporary, gitDir).catch(async (error: NodeJS.ErrnoException) => {
      if (!(await exists(gitDir))) throw error
    })
  } catch (error) {
    if (SnapshotUnavailableError.isInstance(error)) throw error
    throw unavailable(`Cannot write snapshot data directory ${dataDir}`, error)
  } finally {
    await rm(temporary, { recursive: true, force: true })
  }
}

function unavailable(what: string, error: unknown): SnapshotUnavailableError {
  const why = GitCommandError.isInstance(error)
    ? error.data.stderr
    : ((error as NodeJS.ErrnoException | undefined)?.code ?? String(error))
  return new SnapshotUnavailableError({ message: `${what}: ${why}` }, { cause: error })
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  )
}
