import { createHash, timingSafeEqual } from "node:crypto"
import type { Credentials } from "./args.js"

const digest = (text: string) => createHash("sha256").update(text).digest()

/** What a 401 of basicAuth's server says it wants (RFC 7617), so that a browser asks for it. */
export const BASIC_CHALLENGE = 'Basic realm="agentloop", charset="UTF-8"'

/**
 * A `ServerOptions.authorize` that lets in requests carrying `credentials` as HTTP basic auth,
 * the way `opencode attach` sends them, or as OpenCode's `?auth_token=` (base64 of user:password,
 * for browser clients that cannot set headers). Compared as SHA-256 digests in constant time,
 * so neither the password nor its length shows in how long a refusal takes.
 */
export function basicAuth(credentials: Credentials): (request: Request) => boolean {
  const expected = digest(`${credentials.username}:${credentials.password}`)
  return (request) => {
    const token = tokenOf(request)
    if (token === undefined) return false
    return timingSafeEqual(digest(Buffer.from(token, "base64").toString("utf8")), expected)
  }
}

function tokenOf(request: Request): string | undefined {
  const query = new URL(request.url).searchParams.get("auth_token")
  if (query) return query
  return /^Basic\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "")?.[1]
}
