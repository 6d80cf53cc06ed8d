import { isNamedError } from "../../error/named-error.js"
import type { AddressPolicy } from "./address-policy.js"
import { readBody } from "./body.js"
import { WebFetchError } from "./errors.js"
import { type Answer, openRequest } from "./request.js"

/** What a fetch brought back: the URL it ended at (after redirects), its status, type and body. */
export type Page = { url: string; status: number; contentType: string; body: Buffer }

/** How to fetch: the checks, limits and headers of every request of one fetch. */
export type FetchInput = {
  url: URL
  policy: AddressPolicy
  headers: Record<string, string>
  maxBytes: number
  maxRedirects: number
  /** How long each request may take, its body included. */
  timeoutMs: number
  /** The call's signal: aborting it ends the fetch with its reason. */
  signal: AbortSignal
  /**
   * Called before a redirect is followed, with no connection open and no timer running (it may
   * wait for a person); throwing stops the fetch.
   */
  beforeRedirect?(to: URL, from: URL): Promise<void>
  /** A User-Agent to try once more with when a Cloudflare challenge answers 403; none: no retry. */
  retryUserAgent?: string
}

// What one request ended with: the page, or where to go next and with which headers.
type Step = { page: Page } | { next: URL; headers: Record<string, string> }

const REDIRECTS = new Set([301, 302, 303, 307, 308])

/**
 * GETs `input.url`, following redirects by hand so each hop's address is checked, and reads the
 * final body under the size cap. Each request, body included, ends within `timeoutMs`.
 */
export async function fetchPage(input: FetchInput): Promise<Page> {
  let url = input.url
  let headers = input.headers
  let redirects = 0
  for (let retried = false; ; ) {
    const step = await request(url, headers, input)
    if ("page" in step) return step.page
    if (step.next === url) {
      if (retried) throw failed(url, 403)
      retried = true
    } else {
      if (redirects++ >= input.maxRedirects) {
        const message = `Too many redirects (more than ${input.maxRedirects}) fetching ${input.url.href}`
        throw new WebFetchError({ message, url: url.href, reason: "redirects" })
      }
      await input.beforeRedirect?.(step.next, url)
    }
    url = step.next
    headers = step.headers
  }
}

/** One request under its own timeout, its connection closed whatever happens. */
async function request(url: URL, headers: Record<string, string>, input: FetchInput): Promise<Step> {
  const timeout = AbortSignal.timeout(input.timeoutMs)
  const signal = AbortSignal.any([input.signal, timeout])
  let answer: Answer | undefined
  try {
    answer = await openRequest(url, { policy: input.policy, headers, signal })
    return await stepOf(url, headers, answer, input)
  } catch (error) {
    if (input.signal.aborted) throw input.signal.reason
    if (timeout.aborted) {
      const message = `Request timed out after ${input.timeoutMs / 1000} s: ${url.href}`
      throw new WebFetchError({ message, url: url.href, reason: "timeout" })
    }
    if (isNamedError(error)) throw error
    const message = `Request to ${url.href} failed: ${(error as Error).message}`
    throw new WebFetchError({ message, url: url.href, reason: "network" }, { cause: error })
  } finally {
    answer?.close()
  }
}

async function stepOf(
  url: URL,
  headers: Record<string, string>,
  { response }: Answer,
  input: FetchInput,
): Promise<Step> {
  const status = response.statusCode ?? 0
  const location = response.headers.location
  if (REDIRECTS.has(status) && location) return { next: redirectTarget(url, location), headers }
  // Cloudflare challenges a browser's User-Agent sent without a browser's TLS fingerprint.
  if (status === 403 && response.headers["cf-mitigated"] === "challenge" && input.retryUserAgent)
    return { next: url, headers: { ...headers, "user-agent": input.retryUserAgent } }
  if (status < 200 || status > 299) throw failed(url, status, response.statusMessage)
  const body = await readBody(response, url.href, input.maxBytes)
  return { page: { url: url.href, status, contentType: response.headers["content-type"] ?? "", body } }
}

function failed(url: URL, status: number, statusText?: string): WebFetchError {
  const message = `Request failed with status code: ${status}${statusText ? ` (${statusText})` : ""}`
  return new WebFetchError({ message, url: url.href, reason: "status", status })
}

function redirectTarget(from: URL, location: string): URL {
  const target = URL.canParse(location, from.href) ? new URL(location, from) : undefined
  if (target?.protocol === "http:" || target?.protocol === "https:") return target
  const message = `${from.href} redirected to ${location}, which is not an http(s) URL`
  throw new WebFetchError({ message, url: from.href, reason: "invalid-url" })
}
