import { execFile } from "node:child_process"
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { afterEach, describe, expect, it, vi } from "vitest"
import { createIgnoreCheck } from "../../../src/snapshot/git/ignore-check.js"
import { GitSnapshot } from "../../../src/snapshot/git/index.js"
import { openRepository } from "../../../src/snapshot/git/repository.js"

/**
 * A new file declared to `track({ from, changed })` is asked of one `git check-ignore` process
 * that lives as long as the snapshot: what it answers must stay what `git add --all` decides
 * whatever changes in the ignore rules, and the process must neither hang a step nor outlive
 * the snapshot. Every state is compared with a second GitSnapshot scanning the whole tree.
 */

const run = promisify(execFile)
const roots: string[] = []
const opened: GitSnapshot[] = []
afterEach(async () => {
  vi.unstubAllEnvs()
  await Promise.all(opened.splice(0).map((snapshot) => snapshot.close()))
  await Promise.all(roots.splice(0).map((root) => rm(root, { recursive: true, force: true })))
})

/** A wrapper for git: logs each process's pid and subcommand, and runs `checkIgnore` for check-ignore. */
async function workspace(checkIgnore = 'exec git "$@"') {
  const root = await mkdtemp(path.join(os.tmpdir(), "agentloop-git-ignore-"))
  roots.push(root)
  const directory = path.join(root, "work")
  await mkdir(directory)
  const log = path.join(root, "git.log")
  const wrapper = path.join(root, "git-wrapper")
  await writeFile(
    wrapper,
    [
      "#!/bin/sh",
      `case " $* " in *" check-ignore "*) echo "$$ check-ignore" >> '${log}'; ${checkIgnore};; esac`,
      `echo "$$ other" >> '${log}'`,
      'exec git "$@"',
      "",
    ].join("\n"),
  )
  await chmod(wrapper, 0o755)
  const snapshot = new GitSnapshot({ directory, dataDir: path.join(root, "data"), git: wrapper })
  const reference = new GitSnapshot({ directory, dataDir: path.join(root, "reference") })
  opened.push(snapshot, reference)
  const at = (file: string) => path.join(directory, file)
  const processes = async () =>
    (await readFile(log, "utf8").catch(() => ""))
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => {
        const [pid, kind] = line.split(" ")
        return { pid: Number(pid), kind: kind! }
      })
  const helpers = async () => (await processes()).filter(({ kind }) => kind === "check-ignore")
  /** Both snapshots' git dirs (one each), once a track has made them. */
  const gitDirs = async () =>
    Promise.all(
      ["data", "reference"].map(async (name) => {
        const [gitDir] = await readdir(path.join(root, name))
        return path.join(root, name, gitDir!)
      }),
    )
  return {
    root,
    directory,
    wrapper,
    snapshot,
    reference,
    at,
    processes,
    helpers,
    gitDirs,
    async write(file: string, content: string) {
      await mkdir(path.dirname(at(file)), { recursive: true })
      await writeFile(at(file), content)
    },
  }
}

type Workspace = Awaited<ReturnType<typeof workspace>>

async function full(snapshot: GitSnapshot): Promise<string> {
  const hash = await snapshot.track()
  expect(hash, snapshot.unavailableReason).toMatch(/^[0-9a-f]{40}$/)
  return hash!
}

/** Records the declared changes and checks them against a full scan; returns the state. */
async function step(space: Workspace, from: string, changed: string[]): Promise<string> {
  const hash = await space.snapshot.track({ from, changed })
  expect(hash, space.snapshot.unavailableReason).toBe(await full(space.reference))
  return hash!
}

/** The files a state records, as `git ls-tree -r` lists them. */
async function filesOf(space: Workspace, hash: string): Promise<string[]> {
  const [gitDir] = await space.gitDirs()
  const { stdout } = await run("git", ["--git-dir", gitDir!, "ls-tree", "-r", "--name-only", "-z", hash])
  return stdout.split("\0").filter((name) => name !== "")
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

async function seed(space: Workspace): Promise<string> {
  await space.write(".gitignore", "*.log\n")
  await space.write("src/.gitignore", "generated/\n*.tmp\n!keep.tmp\n")
  await space.write("src/a/.gitignore", "secret.*\n")
  await space.write("src/a/index.ts", "a\n")
  const base = await full(space.snapshot)
  expect(base).toBe(await full(space.reference))
  return base
}

describe("GitSnapshot's check of new files against the ignore rules", () => {
  it("leaves out new files nested .gitignore files, info/exclude and the excludes file ignore, with one git process for every step", async () => {
    const config = await mkdtemp(path.join(os.tmpdir(), "agentloop-git-ignore-config-"))
    roots.push(config)
    await mkdir(path.join(config, "git"))
    await writeFile(path.join(config, "git", "ignore"), "*.bak\n")
    vi.stubEnv("XDG_CONFIG_HOME", config)
    const space = await workspace()
    const base = await seed(space)
    for (const gitDir of await space.gitDirs()) {
      await mkdir(path.join(gitDir, "info"), { recursive: true })
      await writeFile(path.join(gitDir, "info", "exclude"), "local-only/\n")
    }
    const created = [
      "src/generated/out.ts",
      "src/a/scratch.tmp",
      "src/keep.tmp",
      "src/a/secret.env",
      "local-only/notes.ts",
      "notes.bak",
      "debug.log",
      "src/a/kept.ts",
      // Answers are matched to the paths asked, byte for byte.
      "src/a/wéird\tname\n.ts",
      "src/a/wéird\tname\n.tmp",
    ]
    for (const file of created) await space.write(file, `${file}\n`)
    const started = (await space.processes()).length
    const first = await step(space, base, created)
    // No scan: `git config` for where the excludes file is, and the check-ignore.
    expect((await space.processes()).slice(started).map(({ kind }) => kind)).toEqual([
      "other",
      "check-ignore",
    ])
    expect(await filesOf(space, first)).toEqual([
      ".gitignore",
      "src/.gitignore",
      "src/a/.gitignore",
      "src/a/index.ts",
      "src/a/kept.ts",
      "src/a/wéird\tname\n.ts",
      "src/keep.tmp",
    ])
    const more = ["src/b/c/deep.tmp", "src/b/c/deep.ts", "other.bak", "local-only/more.ts"]
    for (const file of more) await space.write(file, `${file}\n`)
    const before = await space.processes()
    await step(space, first, more)
    // No process for the second step: the first one's check-ignore answered it.
    expect(await space.processes()).toEqual(before)
    expect((await space.helpers()).length).toBe(1)
  })

  it("follows the ignore rules as they change between steps: .gitignore files, info/exclude, the excludes file", async () => {
    const config = await mkdtemp(path.join(os.tmpdir(), "agentloop-git-ignore-config-"))
    roots.push(config)
    await mkdir(path.join(config, "git"))
    const ignoreFile = path.join(config, "git", "ignore")
    await writeFile(ignoreFile, "")
    vi.stubEnv("XDG_CONFIG_HOME", config)
    const space = await workspace()
    let state = await seed(space)
    const [ours, theirs] = await space.gitDirs()
    let round = 0
    /** A new file in `directory`, recorded from known changes after `change` and a scan. */
    const newFileAfter = async (directory: string, change: () => Promise<void>) => {
      await change()
      state = await full(space.snapshot)
      round++
      const file = `${directory}/new-${round}.txt`
      await space.write(file, "new\n")
      state = await step(space, state, [file])
      return (await filesOf(space, state)).includes(file)
    }
    expect(await newFileAfter("src/a", async () => {})).toBe(true)
    // The root's and a nested .gitignore, read by the process for the step before.
    expect(await newFileAfter("src/a", () => space.write(".gitignore", "*.log\n*.txt\n"))).toBe(false)
    expect(await newFileAfter("src/a", () => space.write(".gitignore", "*.log\n"))).toBe(true)
    expect(await newFileAfter("src/a", () => space.write("src/a/.gitignore", "new-*\n"))).toBe(false)
    expect(await newFileAfter("src/a", () => space.write("src/a/.gitignore", "secret.*\n"))).toBe(true)
    // Rules outside the work tree, in each snapshot's git dir.
    const inBoth = async (change: (gitDir: string) => Promise<unknown>) => {
      await change(ours!)
      await change(theirs!)
    }
    const exclude = (text: string) =>
      inBoth(async (gitDir) => {
        await mkdir(path.join(gitDir, "info"), { recursive: true })
        await writeFile(path.join(gitDir, "info", "exclude"), text)
      })
    expect(await newFileAfter("src/a", () => exclude("src/a/\n"))).toBe(false)
    expect(await newFileAfter("src/a", () => exclude(""))).toBe(true)
    const rules = path.join(space.root, "more-rules")
    await writeFile(rules, "*.txt\n")
    const excludesFile = (value: string) =>
      inBoth((gitDir) => run("git", ["--git-dir", gitDir, "config", "core.excludesFile", value]))
    // A config written into the git dir is replaced by the snapshot's own: its excludesFile is not read.
    expect(await newFileAfter("src/a", () => excludesFile(rules))).toBe(true)
    // The excludes file git reads when no config names one.
    expect(await newFileAfter("src/a", () => writeFile(ignoreFile, "*.txt\n"))).toBe(false)
    expect(await newFileAfter("src/a", () => writeFile(ignoreFile, "*.md\n"))).toBe(true)
  })

  it("still records a step, by a scan, when the check-ignore process dies in the middle of it", async () => {
    // The process reads a byte of the paths asked, then exits.
    const space = await workspace("head -c 1 >/dev/null; exit 3")
    const base = await seed(space)
    await space.write("src/a/one.ts", "one\n")
    await space.write("src/a/secret.key", "ignored\n")
    const first = await step(space, base, ["src/a/one.ts", "src/a/secret.key"])
    await space.write("src/two.tmp", "ignored\n")
    await space.write("src/two.ts", "two\n")
    await step(space, first, ["src/two.tmp", "src/two.ts"])
    // Each step started one, which died: nothing was left waiting on it.
    expect((await space.helpers()).length).toBe(2)
  })

  it("starts a new check-ignore process when the one it had was killed between steps", async () => {
    const space = await workspace()
    const base = await seed(space)
    await space.write("src/a/one.ts", "one\n")
    const first = await step(space, base, ["src/a/one.ts"])
    const [helper] = await space.helpers()
    expect(isRunning(helper!.pid)).toBe(true)
    process.kill(helper!.pid, "SIGKILL")
    await space.write("src/a/two.ts", "two\n")
    await space.write("src/a/secret.two", "ignored\n")
    const second = await step(space, first, ["src/a/two.ts", "src/a/secret.two"])
    // A step that asks before the death is noticed scans instead (still right, as `step` checks);
    // the next one starts a new process at the latest. A loaded machine notices late.
    if ((await space.helpers()).length === 1) {
      await space.write("src/a/three.ts", "three\n")
      await step(space, second, ["src/a/three.ts"])
    }
    expect((await space.helpers()).length).toBe(2)
  })

  it("gives up on a check-ignore that does not answer in time, and ends it", async () => {
    // The process reads the paths asked and never answers.
    const space = await workspace("exec cat >/dev/null")
    await seed(space)
    const context = await openRepository({
      directory: space.directory,
      dataDir: path.join(space.root, "data"),
      exclude: [],
      binary: space.wrapper,
      env: process.env,
    })
    const check = createIgnoreCheck(context, 200)
    await expect(check.ignored(["src/a/new.ts"])).rejects.toThrow(
      "git check-ignore was killed: no answer within 200 ms",
    )
    await check.close()
    const [helper] = await space.helpers()
    expect(isRunning(helper!.pid)).toBe(false)
    await expect(check.ignored(["src/a/new.ts"])).rejects.toThrow(/closed/)
  })

  it("ends its check-ignore process on close, and refuses calls after it", async () => {
    const space = await workspace()
    const base = await seed(space)
    await space.write("src/a/one.ts", "one\n")
    await step(space, base, ["src/a/one.ts"])
    const [helper] = await space.helpers()
    expect(isRunning(helper!.pid)).toBe(true)
    await space.snapshot.close()
    expect(isRunning(helper!.pid)).toBe(false)
    expect(await space.snapshot.track()).toBeUndefined()
    expect(space.snapshot.unavailableReason).toMatch(/closed/)
    await expect(space.snapshot.patch(base)).rejects.toThrow(/closed/)
  })

  it("never keeps the Node process alive: a script that does not close its snapshot exits, and so does its check-ignore", {
    timeout: 30_000,
  }, async () => {
    const space = await workspace()
    const module = fileURLToPath(new URL("../../../src/snapshot/git/index.ts", import.meta.url))
    const script = `
      import { writeFile } from "node:fs/promises"
      import { GitSnapshot } from ${JSON.stringify(module)}
      const [directory, dataDir, git] = process.argv.slice(1)
      const snapshot = new GitSnapshot({ directory, dataDir, git })
      const from = await snapshot.track()
      await writeFile(directory + "/new.txt", "new")
      const after = await snapshot.track({ from, changed: ["new.txt"] })
      const { files } = await snapshot.patch(from, { from: after, changed: [] })
      console.log(JSON.stringify(files))
    `
    const { stdout } = await run(
      process.execPath,
      [
        "--import",
        "tsx",
        "--input-type=module",
        "-e",
        script,
        space.directory,
        path.join(space.root, "data"),
        space.wrapper,
      ],
      { cwd: fileURLToPath(new URL("../../..", import.meta.url)), timeout: 25_000 },
    )
    expect(JSON.parse(stdout)).toEqual(["new.txt"])
    const [helper, ...others] = await space.helpers()
    expect(helper).toBeDefined()
    expect(others).toEqual([])
    // Its input closed with the script, so it ends on its own.
    await vi.waitFor(() => expect(isRunning(helper!.pid)).toBe(false), { timeout: 5_000, interval: 20 })
  })
})
