import { execFileSync } from "node:child_process"
import { link, mkdir, readFile, stat, symlink, writeFile } from "node:fs/promises"
import { dirname, join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { confinedFiles } from "../../../src/tools/sandbox/confined-files.js"
import { SandboxPathError } from "../../../src/tools/sandbox/errors.js"
import { tempDirs } from "./helpers.js"

const dirs = tempDirs()
afterEach(() => dirs.cleanup())

/** Rejects with SandboxPathError naming `path`. */
async function refused(promise: Promise<unknown>, path: string) {
  const error = await promise.then(
    () => undefined,
    (error: unknown) => error,
  )
  expect(SandboxPathError.isInstance(error), String(error)).toBe(true)
  expect((error as SandboxPathError).data).toMatchObject({ path, reason: "outside" })
  expect((error as SandboxPathError).message).toContain("outside the sandbox")
}

describe("confinedFiles", () => {
  let project: string
  let docs: string
  let outside: string
  let files: ReturnType<typeof confinedFiles>

  beforeEach(async () => {
    project = await dirs.make("agentloop-confined-project-")
    docs = await dirs.make("agentloop-confined-docs-")
    outside = await dirs.make("agentloop-confined-outside-")
    await writeFile(join(outside, "secret.txt"), "outside secret")
    await writeFile(join(docs, "guide.md"), "read me")
    await writeFile(join(project, "a.txt"), "inside")
    files = confinedFiles({ writable: [project], readable: [docs] })
  })

  it("reads, writes, stats, lists, globs and resolves inside its roots", async () => {
    await files.writeFile(join(project, "src/new.ts"), "export {}\n")
    expect(new TextDecoder().decode(await files.readFile(join(project, "src/new.ts")))).toBe("export {}\n")
    expect(await files.stat(join(project, "src"))).toMatchObject({ type: "directory" })
    expect(await files.stat(join(project, "missing.txt"))).toBeUndefined()
    expect((await files.list(project)).map((entry) => entry.name).sort()).toEqual(["a.txt", "src"])
    expect((await files.glob("**/*", { cwd: project })).sort()).toEqual(["a.txt", "src/new.ts"])
    expect(await files.realpath(join(project, "src/../a.txt"))).toBe(join(project, "a.txt"))
    // The folders above a root are on the way to it, in the sandbox too.
    expect(await files.realpath(join(project, ".."))).toBe(dirname(project))
    expect(await files.realpath("/")).toBe("/")
    expect(new TextDecoder().decode(await files.readFile(join(docs, "guide.md")))).toBe("read me")
    expect(await files.stat(join(docs, "guide.md"))).toMatchObject({ type: "file", size: 7 })
  })

  it("refuses every operation on a path outside its roots", async () => {
    const secret = join(outside, "secret.txt")
    await refused(files.readFile(secret), secret)
    await refused(files.writeFile(secret, "pwned"), secret)
    await refused(files.stat(secret), secret)
    await refused(files.realpath(secret), secret)
    await refused(files.list(outside), outside)
    await refused(files.glob("*", { cwd: outside }), outside)
    await refused(files.readFile("/etc/hostname"), "/etc/hostname")
    expect(await readFile(secret, "utf8")).toBe("outside secret")
  })

  it("refuses a `..` that climbs out", async () => {
    const climb = join(project, "..", outside.split("/").at(-1)!, "secret.txt")
    await refused(files.readFile(climb), climb)
    await refused(files.writeFile(climb, "pwned"), climb)
    await refused(files.stat(`${project}/../..`), `${project}/../..`)
  })

  it("refuses a symlink in the directory that points out, and a path through it", async () => {
    await symlink(join(outside, "secret.txt"), join(project, "link.txt"))
    await symlink(outside, join(project, "out"))
    const viaFolder = join(project, "out/secret.txt")
    await refused(files.readFile(join(project, "link.txt")), join(project, "link.txt"))
    await refused(files.stat(join(project, "link.txt")), join(project, "link.txt"))
    await refused(files.realpath(join(project, "link.txt")), join(project, "link.txt"))
    await refused(files.readFile(viaFolder), viaFolder)
    await refused(files.writeFile(viaFolder, "pwned"), viaFolder)
    await refused(files.writeFile(join(project, "out/new.txt"), "pwned"), join(project, "out/new.txt"))
    await refused(files.list(join(project, "out")), join(project, "out"))
    await refused(files.glob("*", { cwd: join(project, "out") }), join(project, "out"))
    // A dangling link is followed by its text: it must not become a way to create a file outside.
    await symlink(join(outside, "created.txt"), join(project, "dangling"))
    await refused(files.stat(join(project, "dangling")), join(project, "dangling"))
    expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe("outside secret")
    await expect(stat(join(outside, "new.txt"))).rejects.toThrow()
    await expect(stat(join(outside, "created.txt"))).rejects.toThrow()
  })

  it("writes onto a symlink or a hard link by replacing the link; the outside file is untouched", async () => {
    await symlink(join(outside, "secret.txt"), join(project, "link.txt"))
    await link(join(outside, "secret.txt"), join(project, "hard.txt"))
    await files.writeFile(join(project, "link.txt"), "replaced link")
    await files.writeFile(join(project, "hard.txt"), "replaced hard link")
    expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe("outside secret")
    expect(await readFile(join(project, "link.txt"), "utf8")).toBe("replaced link")
    expect(await readFile(join(project, "hard.txt"), "utf8")).toBe("replaced hard link")
    expect((await stat(join(outside, "secret.txt"))).nlink).toBe(1)
  })

  it("keeps a replaced file's mode, and leaves no temporary file behind", async () => {
    await writeFile(join(project, "run.sh"), "#!/bin/sh\n", { mode: 0o755 })
    await files.writeFile(join(project, "run.sh"), "#!/bin/sh\necho hi\n")
    expect((await stat(join(project, "run.sh"))).mode & 0o777).toBe(0o755)
    expect((await files.list(project)).map((entry) => entry.name).sort()).toEqual(["a.txt", "run.sh"])
  })

  it("writes nothing into a readable root", async () => {
    await refused(files.writeFile(join(docs, "guide.md"), "pwned"), join(docs, "guide.md"))
    expect(await readFile(join(docs, "guide.md"), "utf8")).toBe("read me")
  })

  it("does not hang on a FIFO a command left in the directory", async () => {
    execFileSync("mkfifo", [join(project, "pipe")])
    expect(await files.stat(join(project, "pipe"))).toMatchObject({ type: "other" })
    expect(await files.readFile(join(project, "pipe"))).toEqual(new Uint8Array())
  })

  it("globs without listing links, so none leads out", async () => {
    await mkdir(join(project, "src"))
    await writeFile(join(project, "src/b.ts"), "b")
    await symlink(join(outside, "secret.txt"), join(project, "src/out.ts"))
    await symlink(outside, join(project, "src/folder"))
    expect(await files.glob("src/**", { cwd: project })).toEqual(["src/b.ts"])
  })
})
