import { z } from "zod"
import { parseInput } from "../../error/invalid-input.js"
import { type AddressPolicy, addressPolicy } from "./address-policy.js"

/** The timeout when the model gives none (OpenCode's 30 s). */
export const DEFAULT_TIMEOUT_MS = 30_000
/** The longest timeout the model may ask for (a host's `timeoutMs` may go beyond). */
export const MAX_TIMEOUT_MS = 120_000
/** The largest response read, in bytes (5 MiB). */
export const DEFAULT_MAX_BYTES = 5 * 1024 * 1024
/** The most redirects one fetch follows. */
export const DEFAULT_MAX_REDIRECTS = 5

/** What a host may set on `webfetchTool`. */
export type WebFetchOptions = {
  /**
   * Which non-public addresses (loopback, link-local, private, carrier-grade NAT, multicast,
   * reserved) may be fetched: none by default; `true` for all; or a list of origins
   * (`"http://127.0.0.1:8080"`: that scheme, host and port) and CIDRs (`"10.0.0.0/8"`,
   * `"fd00::/8"`, or one address). Each redirect is judged on its own: an allowed origin that
   * redirects to another private origin is refused.
   */
  allowPrivate?: boolean | readonly string[]
  /** The timeout when the model gives none, in milliseconds (default 30 000). */
  timeoutMs?: number
  /** The largest response read, in bytes (default 5 MiB); more fails the call. */
  maxBytes?: number
  /** The User-Agent header; default a browser's, retried once as `agentloop-sdk` on a Cloudflare challenge. */
  userAgent?: string
  /** The most redirects one fetch follows (default 5). */
  maxRedirects?: number
}

const Options = z.object({
  allowPrivate: z.unknown().optional(),
  timeoutMs: z.number().positive().optional(),
  maxBytes: z.number().int().positive().optional(),
  userAgent: z.string().min(1).optional(),
  maxRedirects: z.number().int().min(0).optional(),
})

/** The options checked, with their defaults, and `allowPrivate` as a policy. */
export type Settings = {
  policy: AddressPolicy
  timeoutMs: number
  maxBytes: number
  maxRedirects: number
  userAgent: string | undefined
}

/** Checks `options` (InvalidInputError naming the field) and fills in the defaults. */
export function settingsOf(options: WebFetchOptions): Settings {
  const given = parseInput("webfetch options", Options, options)
  return {
    policy: addressPolicy(options.allowPrivate),
    timeoutMs: given.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxBytes: given.maxBytes ?? DEFAULT_MAX_BYTES,
    maxRedirects: given.maxRedirects ?? DEFAULT_MAX_REDIRECTS,
    userAgent: given.userAgent,
  }
}
