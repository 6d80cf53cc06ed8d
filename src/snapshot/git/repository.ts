import { createHash, randomBytes } from "node:crypto"
import { lstat, mkdir, realpath, rename, rm, stat, writeFile } from "node:fs/promises"
import os from "node:os"
import path from "node:path"
import { resolveLinks, within } from "../../util/confined-path.js"
import { SnapshotUnavailableError } from "../errors.js"
import { resolveExclusions } from "./exclusions.js"
import { GitCommandError } from "./git-command-error.js"
import { ATTRIBUTES } from "./git-dir-guard.js"
import { type GitContext, gitEnvironment, runBareGit } from "./git-process.js"

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
  await confinedDataDir(input.dataDir, path.resolve(input.directory), workTree)
  if (!(await exists(gitDir)))
    await initialise({ gitDir, workTree, dataDir: input.dataDir, binary: input.binary, env })
  const realGitDir = await realGitDirOf(gitDir)
  return { binary: input.binary, gitDir, realGitDir, workTree, directory: input.directory, exclusions, env }
}

/**
 * Refuses a data dir inside the work tree that leads out of its place through a link on the
 * way (itself included): the agent's commands can make such links, and the git dir would then
 * be written wherever they lead.
 */
async function confinedDataDir(dataDir: string, directory: string, workTree: string): Promise<void> {
  const resolved = path.resolve(dataDir)
  const under = [directory, workTree].find((root) => within(resolved, [root]))
  if (under === undefined) return
  const lexical = path.join(workTree, path.relative(under, resolved))
  if ((await resolveLinks(lexical)) === lexical) return
  throw new SnapshotUnavailableError({
    message: `Snapshot data directory ${dataDir} lies in ${workTree} but leads elsewhere through a link`,
  })
}

/** The git dir's real path; it must be a folder, not a link to one. */
async function realGitDirOf(gitDir: string): Promise<string> {
  const stats = await lstat(gitDir).catch((error: unknown) => {
    throw unavailable(`Cannot read snapshot git dir ${gitDir}`, error)
  })
  if (!stats.isDirectory())
    throw new SnapshotUnavailableError({ message: `Snapshot git dir ${gitDir} is not a folder (a link?)` })
  return realpath(gitDir)
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
