import type { Bus } from "../bus/bus.js"
import type { Status } from "../schema/session.js"

/** Each session's loop status, in memory: a session without an entry is idle. */
export function createStatusRegistry(bus: Bus) {
  const statuses = new Map<string, Status>()
  return {
    get(sessionID: string): Status {
      return statuses.get(sessionID) ?? { type: "idle" }
    },
    /** The sessions that are not idle, with their status. */
    active(): Record<string, Status> {
      return Object.fromEntries(statuses)
    },
    set(sessionID: string, status: Status): void {
      if (status.type === "idle") statuses.delete(sessionID)
      else statuses.set(sessionID, status)
      bus.publish("session.status", { sessionID, status })
      if (status.type === "idle") bus.publish("session.idle", { sessionID })
    },
  }
}

export type StatusRegistry = ReturnType<typeof createStatusRegistry>
