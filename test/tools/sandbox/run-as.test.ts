// An agent running as root runs its commands as an ordinary user (issue 41, item 1).
import { chmod, chown, mkdir, stat, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { InvalidInputError } from "../../../src/error/invalid-input.js"
import { SandboxUnavailableError } from "../../../src/tools/sandbox/errors.js"
import { createSandboxOperations, sandboxOperations } from "../../../src/tools/sandbox/sandbox-operations.js"
import { bwrapInstalled, NOBODY, run, tempDirs } from "./helpers.js"

const dirs = tempDirs()
afterEach(() => dirs.cleanup())

const asRoot = process.getuid?.() === 0

function thrown(make: () => unknown): unknown {
  try {
    make()
  } catch (error) {
    return error
  }
  throw new Error("nothing was thrown")
}

/** A directory of root's, as an agent running as root makes them. */
async function rootsDirectory(prefix: string) {
  const directory = await dirs.make(prefix)
  await chown(directory, 0, 0)
  return directory
}

describe.runIf(bwrapInstalled && asRoot)("sandboxOperations for an agent running as root", () => {
  it("runs commands as the directory's owner, and gives it the files the tools write", async () => {
    const directory = await dirs.make("agentloop-run-as-owner-")
    const sandbox = sandboxOperations({ directory })
    const result = await run(sandbox, "id -u; id -g; touch made; stat -c %u made", { cwd: directory })
    expect(result).toMatchObject({ exitCode: 0, output: `${NOBODY}\n${NOBODY}\n${NOBODY}\n` })
    await sandbox.writeFile(join(directory, "src/deep/new.ts"), "export {}\n")
    for (const made of ["src", "src/deep", "src/deep/new.ts"])
      expect((await stat(join(directory, made))).uid, made).toBe(NOBODY)
    // The next command can change what the file tools wrote.
    const append = await run(sandbox, "echo more >> src/deep/new.ts && mkdir src/deep/more", {
      cwd: directory,
    })
    expect(append.exitCode, append.output).toBe(0)
  })

  it("runs commands as the user given, in a directory it can write", async () => {
    const directory = await rootsDirectory("agentloop-run-as-user-")
    await chown(directory, 0, NOBODY)
    await chmod(directory, 0o775)
    const sandbox = sandboxOperations({ directory, user: { uid: NOBODY, gid: NOBODY } })
    expect((await run(sandbox, "id -u; id -G", { cwd: directory })).output).toBe(`${NOBODY}\n${NOBODY}\n`)
  })

  it("refuses a directory of root's without a user, saying what to do", async () => {
    const directory = await rootsDirectory("agentloop-run-as-root-")
    const error = thrown(() => sandboxOperations({ directory })) as SandboxUnavailableError
    expect(SandboxUnavailableError.isInstance(error)).toBe(true)
    expect(error.data.reason).toBe("root")
    expect(error.message).toContain(`${directory} belongs to root`)
    expect(error.data.fix).toMatch(/`user`/)
    expect(error.data.fix).toMatch(/chown the directory/)
    expect(error.data.fix).toMatch(/ordinary user/)
  })

  it("refuses a user that cannot write the directory or a writable path, naming it", async () => {
    const directory = await rootsDirectory("agentloop-run-as-unwritable-")
    await chmod(directory, 0o755)
    const user = { uid: NOBODY, gid: NOBODY }
    const error = thrown(() => sandboxOperations({ directory, user })) as SandboxUnavailableError
    expect(error.data).toMatchObject({ reason: "root" })
    expect(error.message).toContain(`uid ${NOBODY}`)
    expect(error.message).toContain(`cannot write ${directory}`)

    const owned = await dirs.make("agentloop-run-as-owned-")
    const cache = join(owned, "cache")
    await mkdir(cache)
    const second = thrown(() => sandboxOperations({ directory: owned, writable: [cache] }))
    expect((second as SandboxUnavailableError).data.reason).toBe("root")
    expect((second as SandboxUnavailableError).message).toContain(`cannot write ${cache}`)

    // A folder on the way that the user cannot enter.
    const closed = await rootsDirectory("agentloop-run-as-closed-")
    await chmod(closed, 0o700)
    const inner = join(closed, "project")
    await mkdir(inner)
    await chown(inner, NOBODY, NOBODY)
    const third = thrown(() => sandboxOperations({ directory: inner }))
    expect((third as SandboxUnavailableError).data.reason).toBe("root")
    expect((third as SandboxUnavailableError).message).toMatch(/Permission denied/)
  })

  it("leaves the user alone when the agent is not root: commands run as the agent's user", async () => {
    const directory = await rootsDirectory("agentloop-run-as-not-root-")
    const host = { platform: "linux" as const, env: { PATH: process.env.PATH }, uid: 1000 }
    const sandbox = createSandboxOperations({ directory, user: { uid: NOBODY, gid: NOBODY } }, host)
    // This process is root in truth: the commands run as it, which shows `user` was not used.
    expect((await run(sandbox, "id -u", { cwd: directory })).output).toBe("0\n")
    await writeFile(join(directory, "x"), "")
  })
})

describe("sandboxOperations' user option", () => {
  it("rejects root as the user", async () => {
    const directory = await dirs.make("agentloop-run-as-zero-")
    for (const user of [
      { uid: 0, gid: NOBODY },
      { uid: NOBODY, gid: 0 },
      { uid: -1, gid: 1 },
    ]) {
      const error = thrown(() => sandboxOperations({ directory, user }))
      expect(InvalidInputError.isInstance(error), JSON.stringify(user)).toBe(true)
    }
  })
})
