import { lookup as dnsLookup } from "node:dns"
import { type ClientRequest, request as httpRequest, type IncomingMessage } from "node:http"
import { request as httpsRequest } from "node:https"
import { isIP, type LookupFunction } from "node:net"
import { bareAddress } from "./address.js"
import type { AddressPolicy } from "./address-policy.js"
import { BlockedAddressError } from "./errors.js"

/** One request's answer: its head, and the body still to be read (or destroyed by `close`). */
export type Answer = {
  response: IncomingMessage
  /** Ends the request and its connection (the tool opens one connection per request). */
  close(error?: Error): void
}

/**
 * Sends a GET for `url` and resolves with the response's head. The address connected to is the
 * one checked: an IP-literal host (for which Node calls no lookup) is checked here, a name in the
 * lookup Node calls before connecting, so a name that resolves differently on a second lookup
 * (DNS rebinding) cannot slip past. Refused addresses reject with BlockedAddressError before any
 * connection is opened. `signal` ends the request and its connection, in any state.
 */
export async function openRequest(
  url: URL,
  input: { policy: AddressPolicy; headers: Record<string, string>; signal: AbortSignal },
): Promise<Answer> {
  refuseAddressLiteral(url, input.policy)
  const refused: { error?: BlockedAddressError } = {}
  const send = url.protocol === "https:" ? httpsRequest : httpRequest
  return new Promise<Answer>((resolve, reject) => {
    // No agent: no pooled connection, opened for another address, is ever reused.
    const request: ClientRequest = send(url, {
      method: "GET",
      headers: input.headers,
      agent: false,
      lookup: guardedLookup(url, input.policy, refused),
    })
    const close = (error?: Error) => {
      input.signal.removeEventListener("abort", onAbort)
      request.destroy(error)
    }
    const onAbort = () => close(input.signal.reason instanceof Error ? input.signal.reason : undefined)
    if (input.signal.aborted) onAbort()
    else input.signal.addEventListener("abort", onAbort, { once: true })
    request.on("error", (error) => {
      input.signal.removeEventListener("abort", onAbort)
      reject(refused.error ?? error)
    })
    request.on("response", (response) => resolve({ response, close }))
    request.end()
  })
}

/**
 * Throws BlockedAddressError when `url`'s host is an IP address `policy` refuses. Node calls no
 * lookup for such a host, so this is its only check; it needs no I/O, so the tool makes it
 * before asking permission for a URL that would be refused whatever the answer.
 */
export function refuseAddressLiteral(url: URL, policy: AddressPolicy): void {
  const host = bareAddress(url.hostname)
  if (isIP(host) !== 0 && !policy(url, host)) throw BlockedAddressError.of(url.href, host)
}

/**
 * A `lookup` for `net.connect` that resolves `url`'s host and keeps only the addresses `policy`
 * allows; when none is left, the connection fails with BlockedAddressError (also kept in
 * `refused`, so the caller sees it whatever Node wraps it in).
 */
function guardedLookup(
  url: URL,
  policy: AddressPolicy,
  refused: { error?: BlockedAddressError },
): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, "")
      const allowed = addresses.filter(({ address }) => policy(url, address))
      const first = allowed[0]
      if (!first) {
        refused.error = BlockedAddressError.of(url.href, addresses[0]?.address ?? hostname)
        return callback(refused.error, "")
      }
      if (options.all) callback(null, allowed)
      else callback(null, first.address, first.family)
    })
  }
}
