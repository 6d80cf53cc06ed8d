import pg from "pg"

export type Listener = {
  /** Resolves once the first LISTEN is in place: notifications sent from then on arrive. */
  listening: Promise<void>
  close(): Promise<void>
}

const FIRST_RETRY_MS = 100
const LAST_RETRY_MS = 5_000

/**
 * A connection that LISTENs on `channel` and hands each payload to `onPayload`, reconnecting
 * (100 ms, doubling to 5 s) when the connection drops. Notifications sent while it is down are
 * not seen (NOTIFY keeps nothing for absent listeners): after each LISTEN, `onListen` (told
 * whether it is the first) reads back what was missed, and the payloads that arrive meanwhile
 * are handed on after it. When it fails, the listener reconnects and it runs again.
 */
export function createListener(
  config: pg.ClientConfig,
  channel: string,
  ready: () => Promise<void>,
  onPayload: (payload: string) => void,
  onListen: (first: boolean) => Promise<void>,
): Listener {
  let client: pg.Client | undefined
  let closed = false
  let retry: NodeJS.Timeout | undefined
  let delay = FIRST_RETRY_MS
  let first = true
  let heard!: () => void
  const listening = new Promise<void>((resolve) => {
    heard = resolve
  })

  async function connect(): Promise<void> {
    if (closed) return
    const next = new pg.Client({ ...config, keepAlive: true })
    client = next
    // Until onListen is done, so that what it reads back comes before what arrives meanwhile.
    let held: string[] | undefined = []
    next.on("notification", (notification) => {
      if (notification.channel !== channel || notification.payload === undefined) return
      if (held) held.push(notification.payload)
      else onPayload(notification.payload)
    })
    next.on("error", () => reconnect(next))
    next.on("end", () => reconnect(next))
    try {
      await ready()
      await next.connect()
      await next.query(`LISTEN "${channel}"`)
      await onListen(first)
      first = false
      for (const payload of held) onPayload(payload)
      held = undefined
      delay = FIRST_RETRY_MS
      heard()
    } catch {
      reconnect(next)
    }
  }

  function reconnect(failed: pg.Client): void {
    if (closed || client !== failed || retry) return
    client = undefined
    void failed.end().catch(() => undefined)
    retry = setTimeout(() => {
      retry = undefined
      void connect()
    }, delay)
    delay = Math.min(delay * 2, LAST_RETRY_MS)
  }

  void connect()
  return {
    listening,
    async close() {
      closed = true
      if (retry) clearTimeout(retry)
      const last = client
      client = undefined
      await last?.end().catch(() => undefined)
    },
  }
}
