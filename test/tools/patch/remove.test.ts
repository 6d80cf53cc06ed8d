import { mkdir, readFile, stat, symlink, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { localOperations } from "../../../src/tools/local-operations.js"
import { confinedFiles } from "../../../src/tools/sandbox/confined-files.js"
import { SandboxPathError } from "../../../src/tools/sandbox/errors.js"
import { sandboxOperations } from "../../../src/tools/sandbox/index.js"
import { tempDirs } from "../sandbox/helpers.js"
import { skipWithoutSandbox } from "../sandbox-available.js"

const dirs = tempDirs()
afterEach(() => dirs.cleanup())

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  )

describe("Operations.remove on this machine", () => {
  it("removes a file, and refuses a directory or a missing path", async () => {
    const directory = await dirs.make("agentloop-remove-local-")
    await writeFile(join(directory, "a.txt"), "a")
    await mkdir(join(directory, "folder"))
    await localOperations.remove!(join(directory, "a.txt"))
    expect(await exists(join(directory, "a.txt"))).toBe(false)
    await expect(localOperations.remove!(join(directory, "folder"))).rejects.toThrow()
    expect(await exists(join(directory, "folder"))).toBe(true)
    await expect(localOperations.remove!(join(directory, "missing.txt"))).rejects.toThrow(/ENOENT/)
  })

  it("removes a link, not the file it points to", async () => {
    const directory = await dirs.make("agentloop-remove-link-")
    await writeFile(join(directory, "target.txt"), "kept")
    await symlink(join(directory, "target.txt"), join(directory, "link.txt"))
    await localOperations.remove!(join(directory, "link.txt"))
    expect(await exists(join(directory, "link.txt"))).toBe(false)
    expect(await readFile(join(directory, "target.txt"), "utf8")).toBe("kept")
  })
})

describe("Operations.remove held to the sandbox's paths", () => {
  it("removes inside the writable roots and refuses elsewhere, through links too", async () => {
    const project = await dirs.make("agentloop-remove-project-")
    const docs = await dirs.make("agentloop-remove-docs-")
    const outside = await dirs.make("agentloop-remove-outside-")
    await writeFile(join(project, "a.txt"), "a")
    await writeFile(join(docs, "guide.md"), "read me")
    await writeFile(join(outside, "secret.txt"), "secret")
    await symlink(outside, join(project, "out"))
    await symlink(join(outside, "secret.txt"), join(project, "link.txt"))
    const files = confinedFiles({ writable: [project], readable: [docs] })

    await files.remove!(join(project, "a.txt"))
    expect(await exists(join(project, "a.txt"))).toBe(false)
    for (const refused of [
      join(outside, "secret.txt"),
      join(docs, "guide.md"),
      join(project, "out/secret.txt"),
      join(project, "../", outside.split("/").at(-1)!, "secret.txt"),
    ]) {
      const error = await files.remove!(refused).then(
        () => undefined,
        (error: unknown) => error,
      )
      expect(SandboxPathError.isInstance(error), `${refused}: ${String(error)}`).toBe(true)
    }
    expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe("secret")
    expect(await readFile(join(docs, "guide.md"), "utf8")).toBe("read me")
    // A link in the last step is removed itself, the file it points to is not.
    await files.remove!(join(project, "link.txt"))
    expect(await exists(join(project, "link.txt"))).toBe(false)
    expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe("secret")
  })

  it.skipIf(skipWithoutSandbox("remove through sandboxOperations"))(
    "is part of sandboxOperations",
    async () => {
      const project = await dirs.make("agentloop-remove-sandbox-")
      const outside = await dirs.make("agentloop-remove-sandbox-outside-")
      await writeFile(join(project, "a.txt"), "a")
      await writeFile(join(outside, "b.txt"), "b")
      const operations = sandboxOperations({ directory: project })
      await operations.remove!(join(project, "a.txt"))
      expect(await exists(join(project, "a.txt"))).toBe(false)
      await expect(operations.remove!(join(outside, "b.txt"))).rejects.toThrow("outside the sandbox")
      expect(await exists(join(outside, "b.txt"))).toBe(true)
    },
  )
})
