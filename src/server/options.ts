/** How `createServer` guards and limits its routes. Every field has a safe default. */
export type ServerOptions = {
  /**
   * Runs before any route (events and the OpenAPI document included); `false` answers 401
   * without touching the runtime. Default: every request is allowed, so bind to localhost or
   * put a proxy in front when the port is reachable by others.
   */
  authorize?: (request: Request) => boolean | Promise<boolean>
  /**
   * The `WWW-Authenticate` header of a 401, naming the scheme `authorize` expects, e.g.
   * `Basic realm="agents"`: a browser asks for a password only when the 401 names one. Default:
   * none.
   */
  challenge?: string
  /**
   * Without `authorize`, the host names (without port) answered besides this machine's own
   * (localhost, 127.0.0.0/8, [::1]), e.g. the name a proxy serves it under; `true` answers any
   * host. A request whose `Host`, or `Origin` when it has one, names another host is refused with
   * 403 ForbiddenHostError, so that a web page that rebinds its name to 127.0.0.1 cannot drive
   * the agent (`cors` origins are answered too). With `authorize`, hosts are not checked. Default:
   * this machine's names only.
   */
  allowedHosts?: readonly string[] | true
  /** Origins allowed to call from a browser page. Default: none (no CORS headers, same origin only). */
  cors?: { origin: string | string[] }
  /** The largest request body in bytes; files arrive as data URLs. Default: 10 MB. */
  bodyLimit?: number
  /** How often an idle event stream gets a heartbeat comment, in ms. Default: 15 000. */
  heartbeatMs?: number
}

export const DEFAULT_BODY_LIMIT = 10 * 1024 * 1024
export const DEFAULT_HEARTBEAT_MS = 15_000
