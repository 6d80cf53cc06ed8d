import { BlockList, isIP } from "node:net"
import { z } from "zod"
import { parseInput } from "../../error/invalid-input.js"
import { bareAddress, isPrivateAddress, privateRanges } from "./address.js"

/**
 * Whether the fetch of `url` may connect to `address`: every public address may; a private one
 * only when the host's `allowPrivate` allows it.
 */
export type AddressPolicy = (url: URL, address: string) => boolean

const Entry = z.string().refine((entry) => originOf(entry) !== undefined || cidrOf(entry) !== undefined, {
  message: 'expected an origin ("http://127.0.0.1:8080") or a CIDR ("10.0.0.0/8", "fd00::/8")',
})
const AllowPrivate = z.union([z.boolean(), z.array(Entry)]).optional()

/**
 * The policy for a webfetch tool's `allowPrivate`: `true` allows every address; a list allows a
 * private address when the URL's origin is listed (scheme, host and port, as the URL was
 * written: each redirect is judged by its own origin) or the address lies in a listed CIDR.
 * Throws InvalidInputError for an entry that is neither.
 */
export function addressPolicy(allowPrivate: boolean | readonly string[] | undefined): AddressPolicy {
  const given = parseInput("webfetch option allowPrivate", AllowPrivate, allowPrivate)
  if (given === true) return () => true
  const entries = given === false || given === undefined ? [] : given
  const origins = new Set(entries.flatMap((entry) => originOf(entry) ?? []))
  const networks = new BlockList()
  for (const entry of entries) {
    const cidr = cidrOf(entry)
    if (cidr) networks.addSubnet(cidr.network, cidr.prefix, cidr.family)
  }
  const ranges = privateRanges()
  return (url, address) => {
    if (!isPrivateAddress(address, ranges)) return true
    if (origins.has(url.origin)) return true
    const bare = bareAddress(address)
    return networks.check(bare, isIP(bare) === 4 ? "ipv4" : "ipv6")
  }
}

function originOf(entry: string): string | undefined {
  if (!/^https?:\/\//i.test(entry)) return undefined
  try {
    return new URL(entry).origin
  } catch {
    return undefined
  }
}

/** A CIDR ("10.0.0.0/8") or a single address (a /32 or /128). */
function cidrOf(entry: string): { network: string; prefix: number; family: "ipv4" | "ipv6" } | undefined {
  const [network = "", prefixText, ...rest] = entry.split("/")
  const kind = isIP(network)
  if (kind === 0 || rest.length > 0) return undefined
  const family = kind === 4 ? "ipv4" : "ipv6"
  const bits = kind === 4 ? 32 : 128
  if (prefixText === undefined) return { network, prefix: bits, family }
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > bits) return undefined
  return { network, prefix: Number(prefixText), family }
}
