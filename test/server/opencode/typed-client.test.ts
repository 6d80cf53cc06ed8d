import { execFile } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { describe, expect, it, onTestFinished } from "vitest"
import { say } from "../../../src/testing/index.js"
import { deploy, startServer } from "./helpers.js"
import { converse } from "./typed-client.js"

const program = fileURLToPath(new URL("./typed-client.ts", import.meta.url))
const modules = fileURLToPath(new URL("../../../node_modules/", import.meta.url))

/** A user's strict tsconfig that compiles the program alone, with the given module resolution. */
function userConfig(resolution: "nodenext" | "bundler") {
  const directory = mkdtempSync(join(tmpdir(), "agentloop-typed-client-"))
  onTestFinished(() => rmSync(directory, { recursive: true, force: true }))
  const compilerOptions = {
    strict: true,
    noEmit: true,
    target: "ES2022",
    lib: ["ES2023", "DOM"],
    types: ["node"],
    typeRoots: [join(modules, "@types")],
    skipLibCheck: true,
    ...(resolution === "nodenext"
      ? { module: "nodenext", moduleResolution: "nodenext" }
      : { module: "esnext", moduleResolution: "bundler" }),
  }
  const path = join(directory, "tsconfig.json")
  writeFileSync(path, JSON.stringify({ compilerOptions, files: [program] }))
  return path
}

describe("a program typed with OpenCode's SDK", () => {
  it.each(["nodenext", "bundler"] as const)(
    "compiles under a strict tsconfig (moduleResolution %s)",
    async (resolution) => {
      const run = promisify(execFile)(
        process.execPath,
        [join(modules, "typescript/bin/tsc"), "-p", userConfig(resolution)],
        {
          timeout: 60_000,
        },
      )
      await expect(
        run.catch((error: { stdout?: string }) => Promise.reject(new Error(error.stdout))),
      ).resolves.toBeTruthy()
    },
    60_000,
  )

  it("reads what it expects from our server", async () => {
    const { url, directory } = await startServer({
      tools: [deploy],
      permission: [{ permission: "deploy", pattern: "*", action: "allow" }],
      turns: [[say.toolCall("deploy", { target: "staging" })], [say.text("Deployed to staging")]],
    })
    const transcript = await converse(url, directory, "Deploy it")
    expect(transcript).toMatchObject({
      mode: "build",
      answer: "Deployed to staging",
      tools: ["deploy completed"],
      streamedText: "Deployed to staging",
      olderRoles: ["user", "assistant (build)", "assistant (build)"],
    })
    expect(transcript.eventTypes).toEqual(expect.arrayContaining(["message.part.updated", "session.idle"]))
  })
})
