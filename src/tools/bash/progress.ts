import type { Context } from "../../tool/tool.js"

// Each update rewrites the tool part in storage: often enough to watch, not on every chunk.
export const PROGRESS_INTERVAL_MS = 200

/**
 * Shows a running command's output on its tool part. Updates are throttled, one at a time and
 * in order; output that came within the interval is shown when it is over (a command that
 * prints, then works in silence, shows what it printed), and at once when the call is aborted,
 * since the processor then closes the part with what it shows. `settled` waits for the last
 * update and stops the rest, so none lands after the tool has returned and no timer is left.
 */
export function createProgress(
  context: Pick<Context, "metadata" | "abort">,
  description: string,
  intervalMs = PROGRESS_INTERVAL_MS,
) {
  let last = Number.NEGATIVE_INFINITY
  let writing: Promise<void> = Promise.resolve()
  let busy = false
  let ended = false
  /** The output not shown yet, read only when it is. */
  let pending: (() => string) | undefined
  let timer: ReturnType<typeof setTimeout> | undefined

  const send = (output: string) => {
    busy = true
    last = Date.now()
    writing = context
      .metadata({ metadata: { output, description } })
      // A progress update that cannot be stored must not fail the command; the result will be.
      .catch(() => undefined)
      .finally(() => {
        busy = false
      })
  }
  const sendPending = () => {
    const output = pending
    pending = undefined
    if (output) send(output())
  }
  const later = (delay: number) => {
    if (timer !== undefined || ended) return
    timer = setTimeout(() => {
      timer = undefined
      // An update still being written: the pending one goes after it, in order.
      if (busy) void writing.then(() => later(0))
      else sendPending()
    }, delay)
    timer.unref?.()
  }
  const onAbort = () => {
    if (!ended) sendPending()
  }
  context.abort.addEventListener("abort", onAbort, { once: true })

  return {
    /** Shows the description with no output yet; the first output will show at once. */
    async start(): Promise<void> {
      send("")
      last = Number.NEGATIVE_INFINITY
      await writing
    },
    /** Shows the output so far if the last update is old enough, else when it is; `output` is read then. */
    update(output: () => string) {
      if (ended) return
      pending = output
      const wait = intervalMs - (Date.now() - last)
      if (busy || wait > 0) later(Math.max(wait, 0))
      else sendPending()
    },
    /** The command ended: nothing more is shown (its result carries the output); waits for the last update. */
    async settled(): Promise<void> {
      ended = true
      clearTimeout(timer)
      timer = undefined
      context.abort.removeEventListener("abort", onAbort)
      await writing
    },
  }
}
