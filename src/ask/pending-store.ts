import { z } from "zod"
import { CorruptRowError } from "../storage/corrupt-row.js"
import type { Storage } from "../storage/port.js"

type Request = { id: string; sessionID: string }

/**
 * Requests waiting for an answer, kept in storage under `<area>/pending/` so that a host
 * restarting after a crash can still list (and answer or reject) what was waiting; and answers
 * recorded under `<area>/replied/` for requests another process waits on, before they are sent
 * there (see `record`). A request and its recorded answer are removed in one write.
 */
export function createPendingStore<R extends Request, A>(
  storage: Storage,
  area: string,
  schema: z.ZodType<R>,
  answerSchema: z.ZodType<A>,
) {
  const pendingKey = (requestID: string) => `${area}/pending/${requestID}`
  const repliedKey = (requestID: string) => `${area}/replied/${requestID}`
  const recordSchema = z.object({ sessionID: z.string(), answer: answerSchema })
  const decode = <T>(key: string, value: unknown, shape: z.ZodType<T>, what: string): T => {
    const parsed = shape.safeParse(value)
    if (parsed.success) return parsed.data
    throw new CorruptRowError({
      kind: "value",
      id: key,
      message: `Stored ${what} ${key} does not match its schema`,
    })
  }
  const get = async (requestID: string): Promise<R | undefined> => {
    const key = pendingKey(requestID)
    const value = await storage.getValue(key)
    return value === undefined ? undefined : decode(key, value, schema, "request")
  }

  return {
    put(request: R): Promise<void> {
      return storage.write([{ type: "value.put", key: pendingKey(request.id), value: request }])
    },

    /** Removes the request with the answer recorded for it, if any. */
    remove(requestID: string): Promise<void> {
      return storage.write([
        { type: "value.remove", key: pendingKey(requestID) },
        { type: "value.remove", key: repliedKey(requestID) },
      ])
    },

    get,

    async list(): Promise<R[]> {
      return (await storage.listValues(`${area}/pending/`)).map(({ key, value }) =>
        decode(key, value, schema, "request"),
      )
    },

    /**
     * Stores the answer to a request another process waits on, before it is sent there: if that
     * process stops before acting on it, the answer is still here for the session's next run
     * (see `recorded`), which acts on it instead of answering "no". Removed with the request.
     */
    record(request: R, answer: A): Promise<void> {
      const value = { sessionID: request.sessionID, answer }
      return storage.write([{ type: "value.put", key: repliedKey(request.id), value }])
    },

    /**
     * The recorded answers of the session's requests that are still stored, oldest request
     * first. A record whose request is gone (answered meanwhile) is removed.
     */
    async recorded(sessionID: string): Promise<{ request: R; answer: A }[]> {
      const found: { request: R; answer: A }[] = []
      for (const { key, value } of await storage.listValues(`${area}/replied/`)) {
        const record = decode(key, value, recordSchema, "answer")
        if (record.sessionID !== sessionID) continue
        const requestID = key.slice(repliedKey("").length)
        const request = await get(requestID)
        if (request) found.push({ request, answer: record.answer })
        else await storage.write([{ type: "value.remove", key }])
      }
      return found
    },
  }
}
