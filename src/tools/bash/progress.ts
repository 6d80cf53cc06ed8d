import type { Context } from "../../tool/tool.js"

// Each update rewrites the tool part in storage: often enough to watch, not on every chunk.
export const PROGRESS_INTERVAL_MS = 200

/**
 * Shows a running command's output on its tool part. Updates are throttled by the time of the
 * last one (no timer is left running), one at a time and in order; `settled` waits for the
 * last, so none lands after the tool has returned.
 */
export function createProgress(
  context: Pick<Context, "metadata">,
  description: string,
  intervalMs = PROGRESS_INTERVAL_MS,
) {
  let last = Number.NEGATIVE_INFINITY
  let writing: Promise<void> = Promise.resolve()
  let busy = false

  const send = (output: string) => {
    busy = true
    writing = context
      .metadata({ metadata: { output, description } })
      // A progress update that cannot be stored must not fail the command; the result will be.
      .catch(() => undefined)
      .finally(() => {
        busy = false
      })
  }

  return {
    /** Shows the description with no output yet; the first output will show at once. */
    async start(): Promise<void> {
      send("")
      await writing
    },
    /** Shows the output so far if the last update is old enough; `output` is only read then. */
    update(output: () => string) {
      const now = Date.now()
      if (busy || now - last < intervalMs) return
      last = now
      send(output())
    },
    async settled(): Promise<void> {
      await writing
    },
  }
}
