import type { Coordinator, Lease } from "./port.js"

/**
 * Makes this process the owner of every session in `sessionIDs`, cancelling (through `cancel`,
 * which reaches whichever process runs them) the runs that hold them, and resolves once no run
 * is left: what the caller then does to the sessions (remove them) no run overwrites. Release
 * the leases afterwards.
 */
export async function holdSessions(
  coordinator: Coordinator,
  sessionIDs: readonly string[],
  cancel: (sessionID: string) => void,
): Promise<Lease[]> {
  const leases: Lease[] = []
  try {
    for (const sessionID of sessionIDs) {
      cancel(sessionID)
      const lease = await coordinator.claim(sessionID, { wait: true })
      if (lease) leases.push(lease)
    }
    return leases
  } catch (error) {
    await Promise.all(leases.map((lease) => lease.release().catch(() => undefined)))
    throw error
  }
}
