import { isNamedError } from "../../error/named-error.js"
import type { AddressPolicy } from "./address-policy.js"
import { readBody } from "./body.js"
import { WebFetchError } from "./errors.js"
import { openRequest } from "./request.js"

/** What a fetch brought back: the URL it ended at (after redirects), its status, type and body. */
export type Page = { url: string; status: number; contentType: string; body: Buffer }

/** How to fetch: the checks, limits and headers of every request of one fetch. */
export type FetchInput = {
  url: URL
  policy: AddressPolicy
  headers: Record<string, string>
  maxBytes: number
  maxRedirects: number
  timeoutMs: number
  /** The call's signal: aborting it ends the fetch with its reason. */
  signal: AbortSignal
  /** A User-Agent to try once more with when a Cloudflare challenge answers 403; none: no retry. */
  retryUserAgent?: string
}

const REDIRECTS = new Set([301, 302, 303, 307, 308])

/**
 * GETs `input.url`, following redirects by hand so each hop's address is checked, and reads the
 * final body under the size cap. The whole fetch, body included, ends within `timeoutMs`.
 */
export async function fetchPage(input: FetchInput): Promise<Page> {
  const timeout = AbortSignal.timeout(input.timeoutMs)
  const signal = AbortSignal.any([input.signal, timeout])
  const at = { url: input.url }
  try {
    return await follow(input, signal, at)
  } catch (error) {
    if (input.signal.aborted) throw input.signal.reason
    const url = at.url.href
    if (timeout.aborted)
      throw new WebFetchError({
        message: `Request timed out after ${input.timeoutMs / 1000} s: ${url}`,
        url,
        reason: "timeout",
      })
    if (isNamedError(error)) throw error
    const message = `Request to ${url} failed: ${(error as Error).message}`
    throw new WebFetchError({ message, url, reason: "network" }, { cause: error })
  }
}

async function follow(input: FetchInput, signal: AbortSignal, at: { url: URL }): Promise<Page> {
  let headers = input.headers
  let redirects = 0
  let retried = false
  for (;;) {
    const url = at.url
    const { response, close } = await openRequest(url, { policy: input.policy, headers, signal })
    try {
      const status = response.statusCode ?? 0
      const location = response.headers.location
      if (REDIRECTS.has(status) && location) {
        if (redirects++ >= input.maxRedirects) {
          const message = `Too many redirects (more than ${input.maxRedirects}) fetching ${input.url.href}`
          throw new WebFetchError({ message, url: url.href, reason: "redirects" })
        }
        at.url = redirectTarget(url, location)
        continue
      }
      // Cloudflare challenges a browser's User-Agent sent without a browser's TLS fingerprint.
      if (
        status === 403 &&
        response.headers["cf-mitigated"] === "challenge" &&
        input.retryUserAgent &&
        !retried
      ) {
        retried = true
        headers = { ...headers, "user-agent": input.retryUserAgent }
        continue
      }
      if (status < 200 || status > 299) {
        const text = response.statusMessage ? ` (${response.statusMessage})` : ""
        const message = `Request failed with status code: ${status}${text}`
        throw new WebFetchError({ message, url: url.href, reason: "status", status })
      }
      const body = await readBody(response, url.href, input.maxBytes)
      return { url: url.href, status, contentType: response.headers["content-type"] ?? "", body }
    } finally {
      close()
    }
  }
}

function redirectTarget(from: URL, location: string): URL {
  const target = URL.canParse(location, from.href) ? new URL(location, from) : undefined
  if (target?.protocol === "http:" || target?.protocol === "https:") return target
  const message = `${from.href} redirected to ${location}, which is not an http(s) URL`
  throw new WebFetchError({ message, url: from.href, reason: "invalid-url" })
}
