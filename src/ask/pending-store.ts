import type { z } from "zod"
import { CorruptRowError } from "../storage/corrupt-row.js"
import type { Storage } from "../storage/port.js"

/**
 * Requests waiting for an answer, kept in storage under `prefix` so that a host restarting
 * after a crash can still list (and answer or reject) what was waiting.
 */
export function createPendingStore<R extends { id: string }>(
  storage: Storage,
  prefix: string,
  schema: z.ZodType<R>,
) {
  const decode = (key: string, value: unknown): R => {
    const parsed = schema.safeParse(value)
    if (parsed.success) return parsed.data
    throw new CorruptRowError({
      kind: "value",
      id: key,
      message: `Stored request ${key} does not match its schema`,
    })
  }

  return {
    put(request: R): Promise<void> {
      return storage.write([{ type: "value.put", key: prefix + request.id, value: request }])
    },

    remove(requestID: string): Promise<void> {
      return storage.write([{ type: "value.remove", key: prefix + requestID }])
    },

    async get(requestID: string): Promise<R | undefined> {
      const key = prefix + requestID
      const value = await storage.getValue(key)
      return value === undefined ? undefined : decode(key, value)
    },

    async list(): Promise<R[]> {
      return (await storage.listValues(prefix)).map(({ key, value }) => decode(key, value))
    },
  }
}
