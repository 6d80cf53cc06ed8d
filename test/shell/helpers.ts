import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach } from "vitest"
import type { Event, MessageV2 } from "../../src/index.js"
import { createTestRuntime, type TestRuntimeOptions } from "../../src/testing/index.js"
import { codingTools } from "../../src/tools/index.js"

/**
 * `setup`: a test runtime with the coding tools in a new directory, the events it publishes, and
 * a session; `makeDirectory`: a new directory. Both directories are removed after each test.
 */
export function shellSetup(prefix: string) {
  const directories: string[] = []
  afterEach(async () => {
    for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true })
  })
  async function makeDirectory(): Promise<string> {
    const directory = await mkdtemp(join(tmpdir(), prefix))
    directories.push(directory)
    return directory
  }
  async function setup(options: TestRuntimeOptions = {}) {
    const directory = await makeDirectory()
    const test = createTestRuntime({ directory, tools: codingTools({ directory }), ...options })
    const events: Event[] = []
    test.runtime.events.onAny((event) => {
      events.push(event)
    })
    const session = await test.runtime.session.create({ title: "shell" })
    return { ...test, directory, events, session }
  }
  return { setup, makeDirectory }
}

/** Resolves once a bash part of the session is stored as running. */
export function bashRunning(
  runtime: ReturnType<typeof createTestRuntime>["runtime"],
): Promise<MessageV2.ToolPart> {
  return new Promise((resolve) => {
    const stop = runtime.events.on("message.part.updated", ({ properties: { part } }) => {
      if (part.type !== "tool" || part.tool !== "bash" || part.state.status !== "running") return
      stop()
      resolve(part)
    })
  })
}
