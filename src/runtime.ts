import { z } from "zod"
import { type Bus, createBus, type Events } from "./bus/bus.js"
import type { Event } from "./bus/catalog.js"
import { parseInput } from "./error/invalid-input.js"
import { RuntimeClosedError } from "./error/runtime-closed.js"
import { createGenerator } from "./id/identifier.js"
import { createSessionService, type SessionService } from "./session/service.js"
import { MemoryStorage } from "./storage/memory.js"
import type { Storage } from "./storage/port.js"

export type RuntimeOptions = {
  /** Where sessions live. Default: a new MemoryStorage. */
  storage?: Storage
  /** Working directory recorded on new sessions. Default: process.cwd(). */
  directory?: string
  /** Called when an event listener throws. Default: console.error. */
  onListenerError?: (error: unknown, event: Event) => void
}

const Options = z.object({
  storage: z
    .custom<Storage>(
      (value) =>
        typeof value === "object" &&
        value !== null &&
        [
          "getSession",
          "listSessions",
          "getMessage",
          "listMessages",
          "getValue",
          "listValues",
          "write",
          "close",
        ].every((method) => typeof (value as Record<string, unknown>)[method] === "function"),
      { message: "expected a Storage (getSession, listSessions, …, write, close)" },
    )
    .optional(),
  directory: z.string().min(1).optional(),
  onListenerError: z
    .custom<RuntimeOptions["onListenerError"]>((value) => typeof value === "function")
    .optional(),
})

export type Runtime = {
  session: SessionService
  events: Events
  /** Ends event streams, then closes the storage. Calls made afterwards fail with RuntimeClosedError. */
  close(): Promise<void>
}

/** The composition root: everything stateful belongs to the runtime it returns. */
export function createRuntime(options: RuntimeOptions = {}): Runtime {
  const parsed = parseInput("runtime options", Options, options)
  const storage = parsed.storage ?? new MemoryStorage()
  const bus: Bus = createBus({
    ...(parsed.onListenerError ? { onListenerError: parsed.onListenerError } : {}),
  })
  let closed: Promise<void> | undefined

  const assertOpen = () => {
    if (closed) throw new RuntimeClosedError({ message: "The runtime is closed" })
  }

  const session = createSessionService({
    storage,
    bus,
    ids: createGenerator(),
    directory: parsed.directory ?? process.cwd(),
    assertOpen,
  })

  const { on, onAny, stream, listenerCount } = bus
  return {
    session,
    events: { on, onAny, stream, listenerCount },
    close() {
      closed ??= (async () => {
        bus.close()
        await storage.close()
      })()
      return closed
    },
  }
}
