import type { Bus } from "../bus/bus.js"
import { RuntimeClosedError } from "../error/runtime-closed.js"
import type { Storage } from "../storage/port.js"

/** What `close()` stops, in order: the waiting asks, the loops, then events and storage. */
export type Closable = {
  permission: AskService
  question: AskService
  /** Cuts off the loop's writes to these sessions: a caller rejected on close must not write its tool's ending. */
  fence: { freeze(sessionIDs: string[]): void }
  loop: { close(): Promise<void> }
  disconnect: (() => void) | undefined
  bus: Bus
  storage: Storage
}
type AskService = { waitingSessions(): string[]; detach(): void; close(): Promise<void> }

/** What `runtime.close` does with work still waiting on a person. */
export type CloseOptions = {
  /** What becomes of permission requests and questions still waiting. Default "keep". */
  asks?: "keep" | "reject"
}

/**
 * A runtime's open and closed states. Callers are refused as soon as `close()` starts
 * (`assertOpen`); the loops it stops still write their endings (an aborted message, interrupted
 * tools) until storage closes (`assertStorageOpen`).
 */
export function createLifecycle() {
  let closed: Promise<void> | undefined
  let storageClosed = false
  const refuse = () => {
    throw new RuntimeClosedError({ message: "The runtime is closed" })
  }
  return {
    assertOpen: () => {
      if (closed) refuse()
    },
    assertStorageOpen: () => {
      if (storageClosed) refuse()
    },
    /** Closes once; later calls get the same promise. */
    close(parts: () => Closable, options: CloseOptions = {}): Promise<void> {
      closed ??= (async () => {
        const { permission, question, fence, loop, disconnect, bus, storage } = parts()
        try {
          if (options.asks !== "reject") {
            fence.freeze([...permission.waitingSessions(), ...question.waitingSessions()])
            permission.detach()
            question.detach()
          }
          await loop.close()
          await permission.close()
          await question.close()
        } finally {
          storageClosed = true
          disconnect?.()
          bus.close()
          await storage.close()
        }
      })()
      return closed
    },
  }
}
