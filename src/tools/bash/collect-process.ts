import type { ChildProcess } from "node:child_process"
import type { Readable } from "node:stream"
import type { ExecOptions, ExecResult } from "../operations.js"

// How long a process tree has to end after SIGTERM before it gets SIGKILL.
const KILL_GRACE_MS = 200
// How long output may keep arriving after the process exited: a background job that inherited
// the pipes would otherwise keep them open, and the command running, for as long as it lives.
const DRAIN_MS = 100

/** How to signal everything a command started: its process group, a sandbox's namespace… */
export type ProcessTree = { signal(signal: NodeJS.Signals): void }

/**
 * Runs a spawned command to its end as `Operations.exec` promises: output goes to `onData` as
 * text as it arrives (a character split across chunks is kept whole); on abort or timeout the
 * tree gets SIGTERM, then SIGKILL; the promise resolves once the process has exited, without
 * waiting for stray background jobs, and rejects when it could not start or `onData` threw.
 */
export function collectProcess(
  child: ChildProcess,
  options: ExecOptions,
  tree: ProcessTree,
): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    const stop = stopper(tree, options)
    const output = readOutput(child, options.onData, () => stop.kill("aborted"))
    child.once("error", (error) => {
      // Only a failure to start settles here; once started, the exit event does.
      if (child.pid !== undefined) return
      stop.dispose()
      reject(error)
    })
    child.once("exit", async (exitCode) => {
      stop.exited()
      await output.drained()
      if (output.failure !== undefined) reject(output.failure)
      else resolve({ exitCode, timedOut: stop.reason === "timedOut", aborted: stop.reason === "aborted" })
    })
  })
}

/** Kills the process tree on abort or timeout, once. */
function stopper(tree: ProcessTree, options: ExecOptions) {
  let reason: "timedOut" | "aborted" | undefined
  let exited = false
  let grace: NodeJS.Timeout | undefined
  const kill = (why: "timedOut" | "aborted") => {
    if (reason || exited) return
    reason = why
    tree.signal("SIGTERM")
    grace = setTimeout(() => tree.signal("SIGKILL"), KILL_GRACE_MS)
  }
  const onAbort = () => kill("aborted")
  options.signal.addEventListener("abort", onAbort, { once: true })
  const timeout =
    options.timeoutMs === undefined ? undefined : setTimeout(() => kill("timedOut"), options.timeoutMs)
  const dispose = () => {
    clearTimeout(timeout)
    clearTimeout(grace)
    options.signal.removeEventListener("abort", onAbort)
  }
  return {
    kill,
    dispose,
    get reason() {
      return reason
    },
    exited() {
      exited = true
      dispose()
      // The command is gone; whatever it started that outlived the SIGTERM goes now.
      if (reason) tree.signal("SIGKILL")
    },
  }
}

/** Streams stdout and stderr as text to `onData`; a throwing `onData` stops the command. */
function readOutput(child: ChildProcess, onData: (chunk: string) => void, stop: () => void) {
  const state: { failure?: unknown } = {}
  const deliver = (text: string) => {
    if (text === "" || state.failure !== undefined) return
    try {
      onData(text)
    } catch (error) {
      state.failure = error
      stop()
    }
  }
  const streams = [child.stdout, child.stderr].filter((stream): stream is Readable => stream !== null)
  const flushes = streams.map((stream) => {
    const decoder = new TextDecoder("utf-8")
    stream.on("data", (chunk: Buffer) => deliver(decoder.decode(chunk, { stream: true })))
    return () => deliver(decoder.decode())
  })
  return {
    get failure() {
      return state.failure
    },
    async drained() {
      await Promise.all(streams.map((stream) => closed(stream, DRAIN_MS)))
      for (const stream of streams) stream.destroy()
      for (const flush of flushes) flush()
    },
  }
}

function closed(stream: Readable, timeoutMs: number): Promise<void> {
  if (stream.closed || stream.readableEnded) return Promise.resolve()
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, timeoutMs)
    const done = () => {
      clearTimeout(timer)
      resolve()
    }
    stream.once("end", done)
    stream.once("close", done)
  })
}
