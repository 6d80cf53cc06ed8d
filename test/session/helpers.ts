import { createRuntime, type Event, type RuntimeOptions } from "../../src/index.js"

/** A runtime on memory storage that records every event it publishes. */
export function recordingRuntime(options: RuntimeOptions = {}) {
  const runtime = createRuntime({ directory: "/work/project", ...options })
  const events: Event[] = []
  runtime.events.onAny((event) => {
    events.push(event)
  })
  const types = () => events.map((event) => event.type)
  const clear = () => {
    events.length = 0
  }
  return { runtime, events, types, clear }
}

export async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error("expected a rejection")
    },
    (error: Error) => error,
  )
}
