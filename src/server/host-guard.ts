import type { MiddlewareHandler } from "hono/types"
import { ForbiddenHostError } from "./errors.js"
import type { ServerOptions } from "./options.js"

type Guard = { allowedHosts: ServerOptions["allowedHosts"]; corsOrigins: readonly string[] }

/**
 * Keeps a server without a password from answering web pages (DNS rebinding): a page whose name
 * now resolves to 127.0.0.1 reaches the port, but its requests still carry its own name in `Host`,
 * and its origin in `Origin`. Only this machine's names are answered (localhost, 127.0.0.0/8,
 * [::1], any port), those of `allowedHosts`, and the origins `cors` lists; a request without
 * `Origin` (a terminal client, curl) is judged by its `Host` alone.
 */
export function guardHosts({ allowedHosts, corsOrigins }: Guard): MiddlewareHandler {
  const allowed = new Set(allowedHosts === true ? [] : (allowedHosts ?? []).map(hostnameOf))
  const isAllowed = (hostname: string | undefined) =>
    hostname !== undefined && (isLoopback(hostname) || allowed.has(hostname))
  return async (c, next) => {
    if (allowedHosts !== true) {
      const host = c.req.header("host") ?? new URL(c.req.url).host
      if (!isAllowed(hostnameOf(host))) throw refusal("Host", host)
      const origin = c.req.header("origin")
      if (origin !== undefined && !corsOrigins.includes(origin)) {
        const named = parseURL(origin)
        if (!isAllowed(named?.hostname)) throw refusal("Origin", named?.host || origin)
      }
    }
    await next()
  }
}

function refusal(header: "Host" | "Origin", host: string): ForbiddenHostError {
  return new ForbiddenHostError({
    message: `${header} ${host} is not this machine: a server without a password answers only its own names (see allowedHosts)`,
    host,
  })
}

/** The host name as a URL normalises it (lower case, IPv4 in dotted decimal, IPv6 bracketed and compressed), without the port. */
function hostnameOf(host: string): string | undefined {
  return parseURL(`http://${host}`)?.hostname
}

function parseURL(text: string): URL | undefined {
  try {
    return new URL(text)
  } catch {
    return undefined
  }
}

function isLoopback(hostname: string): boolean {
  if (hostname === "localhost") return true
  if (/^127\.\d+\.\d+\.\d+$/.test(hostname)) return true
  // IPv6's loopback, and IPv4's loopback mapped into IPv6 (::ffff:127.x.y.z, normalised to hex).
  return hostname === "[::1]" || hostname.startsWith("[::ffff:7f")
}
