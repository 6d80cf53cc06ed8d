import type { Coordinator, CoordinatorMessage, Lease } from "../coordination/port.js"

/** One simulated process's coordinator; `crash()` drops its leases and links as a killed process would. */
export type HubCoordinator = Coordinator & { crash(): void }

type Member = {
  listeners: Set<(message: CoordinatorMessage) => void>
  leases: Set<HeldLease>
  alive: boolean
}
type HeldLease = { sessionID: string; member: Member; lost: AbortController }

/**
 * Coordinators of simulated processes that share one storage, all in this process: for
 * testing what runs on PostgreSQL across processes (one owner per session, events and answers
 * reaching every process) with several runtimes over one `MemoryStorage`. Messages arrive on a
 * later microtask, in the order they were sent, as over a network.
 */
export function createCoordinatorHub() {
  const members = new Set<Member>()
  const owners = new Map<string, HeldLease>()
  const queues = new Map<string, (() => void)[]>()

  function free(lease: HeldLease): void {
    if (owners.get(lease.sessionID) !== lease) return
    owners.delete(lease.sessionID)
    lease.member.leases.delete(lease)
    // Every waiter looks again; the first to run takes it, the others wait on.
    for (const wake of queues.get(lease.sessionID)?.splice(0) ?? []) wake()
  }

  function take(sessionID: string, member: Member): Lease {
    const held: HeldLease = { sessionID, member, lost: new AbortController() }
    owners.set(sessionID, held)
    member.leases.add(held)
    return { lost: held.lost.signal, release: async () => free(held) }
  }

  function coordinator(): HubCoordinator {
    const member: Member = { listeners: new Set(), leases: new Set(), alive: true }
    members.add(member)
    return {
      async claim(sessionID, { wait, signal }) {
        while (member.alive && !signal?.aborted) {
          if (!owners.has(sessionID)) return take(sessionID, member)
          if (!wait) return undefined
          await new Promise<void>((resolve) => {
            const queue = queues.get(sessionID) ?? []
            queues.set(sessionID, queue)
            const wake = () => {
              signal?.removeEventListener("abort", onAbort)
              resolve()
            }
            const onAbort = () => {
              const at = queue.indexOf(wake)
              if (at !== -1) queue.splice(at, 1)
              resolve()
            }
            queue.push(wake)
            signal?.addEventListener("abort", onAbort, { once: true })
          })
        }
        return undefined
      },
      async publish(message) {
        if (!member.alive) return
        // Each receiver gets its own copy, as from the wire.
        const text = JSON.stringify(message)
        for (const other of members)
          if (other !== member && other.alive)
            queueMicrotask(() => {
              if (other.alive) for (const listener of other.listeners) listener(JSON.parse(text))
            })
      },
      subscribe(listener) {
        member.listeners.add(listener)
        return () => member.listeners.delete(listener)
      },
      crash() {
        member.alive = false
        members.delete(member)
        for (const lease of [...member.leases]) {
          lease.lost.abort()
          free(lease)
        }
      },
    }
  }

  return { coordinator }
}
