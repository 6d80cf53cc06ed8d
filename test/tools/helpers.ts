import { mkdir, mkdtemp, realpath, rm, utimes, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { Permission, type Tool } from "../../src/index.js"
import { createTestRuntime } from "../../src/testing/index.js"
import { runTool } from "../../src/tool/ai-tools.js"
import { createPathLock, type PathLock } from "../../src/tools/path-lock.js"

/** A real temporary directory: `root` holds `project` (the tools' directory) and whatever sits beside it. */
export async function tempProject() {
  const root = await realpath(await mkdtemp(join(tmpdir(), "agentloop-tools-")))
  const directory = join(root, "project")
  await mkdir(directory)
  return {
    root,
    directory,
    /** Writes a file relative to `root` ("project/src/a.ts", "etc/shadow"), creating directories. */
    async put(path: string, content: string | Uint8Array, mtimeSeconds?: number) {
      const file = join(root, path)
      await mkdir(dirname(file), { recursive: true })
      await writeFile(file, content)
      if (mtimeSeconds !== undefined) await utimes(file, mtimeSeconds, mtimeSeconds)
      return file
    },
    cleanup: () => rm(root, { recursive: true, force: true }),
  }
}

export type Answer = "once" | "always" | "reject"

/**
 * Tool contexts whose asks go through a real runtime's permission service with `rules`: denies
 * throw, allows pass, and what is left to ask is recorded and answered by `answer` (default once).
 */
export async function permissionHarness(
  rules: Permission.Ruleset,
  answer: (request: Permission.Request) => Answer = () => "once",
) {
  const asked: Permission.Request[] = []
  const { runtime } = createTestRuntime({
    onPermission: (request) => {
      asked.push(request)
      return answer(request)
    },
  })
  const session = await runtime.session.create()
  /** Every request a tool made, allowed or not: permission and patterns. */
  const requests: { permission: string; patterns: string[] }[] = []
  const context: Tool.Context = {
    sessionID: session.id,
    messageID: "message",
    callID: "call",
    agent: "build",
    abort: new AbortController().signal,
    metadata: async () => {},
    // As the runtime's tool context does: what `rules` say, without asking.
    evaluate: async (permission, pattern) => Permission.evaluate(permission, pattern, rules).action,
    ask: async (request) => {
      requests.push({ permission: request.permission, patterns: request.patterns })
      await runtime.permission.ask({
        sessionID: session.id,
        permission: request.permission,
        patterns: request.patterns,
        always: request.always ?? [],
        metadata: request.metadata ?? {},
        ruleset: rules,
      })
    },
  }
  const run = (tool: Tool.Info, input: unknown) => runTool(tool, input, context)
  return { runtime, context, requests, asked, run }
}

/** Rules in config shape, e.g. `{ read: { "*": "deny", "src/*": "allow" } }`, after an allow-all base. */
export function rules(config: Permission.Config): Permission.Ruleset {
  return Permission.fromConfig({ "*": "allow", ...config })
}

/** A promise the test settles: how a human's late answer is played without sleeping. */
export function gate() {
  let open: () => void = () => {}
  const opened = new Promise<void>((resolve) => {
    open = resolve
  })
  return { opened, open }
}

/** A path lock that reports when a call queues behind another on the same path. */
export function watchedLock(onQueued: () => void): PathLock {
  const lock = createPathLock()
  const running = new Map<string, number>()
  return {
    async run(path, work) {
      running.set(path, (running.get(path) ?? 0) + 1)
      if (running.get(path)! > 1) onQueued()
      try {
        return await lock.run(path, work)
      } finally {
        running.set(path, running.get(path)! - 1)
      }
    },
  }
}
