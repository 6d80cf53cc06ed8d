/**
 * Signals that abort with one parent signal through a single listener on it. A listener each
 * (or an `AbortSignal.any` each) would pile up on a long-lived parent, such as the signal a
 * runtime aborts on close, when many prompts or titles wait at once.
 */
export function createAbortGroup(parent: AbortSignal) {
  const members = new Set<AbortController>()
  parent.addEventListener(
    "abort",
    () => {
      for (const member of members) member.abort(parent.reason)
    },
    { once: true },
  )
  return {
    /** A controller that aborts with the parent, until `leave`. */
    join(): { controller: AbortController; leave(): void } {
      const controller = new AbortController()
      if (parent.aborted) controller.abort(parent.reason)
      else members.add(controller)
      return { controller, leave: () => members.delete(controller) }
    },
  }
}
