import { z } from "zod"
import { NamedError } from "../../error/named-error.js"

const BlockedAddressData = z.object({
  message: z.string(),
  /** The URL refused: the one asked for, or the redirect that led there. */
  url: z.string(),
  /** The private address the URL's host is, or resolved to. */
  address: z.string(),
})

/**
 * webfetch refused a URL whose host is, or resolves to, a loopback, link-local, private or
 * otherwise non-public address (checked on the address connected to, and again on every
 * redirect): a page cannot make the agent read a cloud metadata endpoint or an internal admin
 * page. The host allows such addresses with the tool's `allowPrivate` option.
 */
export class BlockedAddressError extends NamedError<
  "BlockedAddressError",
  z.infer<typeof BlockedAddressData>
> {
  static override readonly errorName = "BlockedAddressError"
  static readonly Schema = z.object({ name: z.literal("BlockedAddressError"), data: BlockedAddressData })

  static of(url: string, address: string): BlockedAddressError {
    return new BlockedAddressError({
      message: `Refused to fetch ${url}: its address ${address} is on a private network (loopback, link-local, private or reserved). Fetching it needs the host application to allow it (webfetch's allowPrivate option); do not try another spelling of the address.`,
      url,
      address,
    })
  }
}

const WebFetchData = z.object({
  message: z.string(),
  url: z.string(),
  /**
   * What went wrong: the URL is not http(s), the server answered with a non-2xx `status`, the
   * body is over the size cap, the time ran out, too many redirects, or the connection failed.
   */
  reason: z.enum(["invalid-url", "status", "too-large", "timeout", "redirects", "network"]),
  /** The HTTP status, for reason "status". */
  status: z.number().optional(),
})

/** A fetch that did not produce a page; the message tells the model what happened. */
export class WebFetchError extends NamedError<"WebFetchError", z.infer<typeof WebFetchData>> {
  static override readonly errorName = "WebFetchError"
  static readonly Schema = z.object({ name: z.literal("WebFetchError"), data: WebFetchData })

  static tooLarge(url: string, maxBytes: number): WebFetchError {
    return new WebFetchError({
      message: `Response too large (exceeds ${sizeOf(maxBytes)} limit)`,
      url,
      reason: "too-large",
    })
  }
}

const MiB = 1024 * 1024

/** A size as OpenCode words its cap ("5 MB" for 5 MiB), in bytes when it is no whole number of MiB. */
function sizeOf(bytes: number): string {
  return bytes % MiB === 0 ? `${bytes / MiB} MB` : `${bytes} bytes`
}
