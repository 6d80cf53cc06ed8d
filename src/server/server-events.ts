import type { Event } from "../schema/events.js"

type Listener = (event: Event) => void

/**
 * Events the server publishes itself, next to the runtime's, to its event streams: the failure
 * of a `prompt_async` run that nobody awaits. One per app, so two servers never share them.
 */
export type ServerEvents = {
  publish(event: Event): void
  subscribe(listener: Listener): () => void
}

export function createServerEvents(): ServerEvents {
  const listeners = new Set<Listener>()
  return {
    publish(event) {
      for (const listener of listeners) listener(event)
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  }
}
