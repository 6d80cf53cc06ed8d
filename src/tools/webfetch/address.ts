import { BlockList, isIP } from "node:net"

// Every range a public web page has no business making the agent reach: this machine, the
// local networks, the cloud metadata endpoints (169.254.169.254, fd00:ec2::254), and what is not
// routed on the internet at all (RFC 6890's special-purpose registries).
const PRIVATE_IPV4: readonly [string, number][] = [
  ["0.0.0.0", 8], // "this network", and 0.0.0.0 reaches this machine
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local: cloud metadata lives here
  ["172.16.0.0", 12],
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.88.99.0", 24], // 6to4 relays (deprecated)
  ["192.168.0.0", 16],
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, and the broadcast address
]

const PRIVATE_IPV6: readonly [string, number][] = [
  ["::", 96], // unspecified, loopback and the deprecated IPv4-compatible forms (::127.0.0.1)
  ["64:ff9b:1::", 48], // local-use IPv4/IPv6 translation
  ["100::", 64], // discard-only
  ["2001:db8::", 32], // documentation
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated)
  ["ff00::", 8], // multicast
]

/**
 * The non-public ranges as a BlockList. Its IPv4 subnets also match the IPv4-mapped IPv6 forms
 * (`::ffff:127.0.0.1`, `::ffff:7f00:1`), checked on Node 22 and 24.
 */
export function privateRanges(): BlockList {
  const list = new BlockList()
  for (const [network, prefix] of PRIVATE_IPV4) list.addSubnet(network, prefix, "ipv4")
  for (const [network, prefix] of PRIVATE_IPV6) list.addSubnet(network, prefix, "ipv6")
  return list
}

/**
 * Whether `address` (an IPv4 or IPv6 address, with or without brackets or a zone) is loopback,
 * link-local, private, carrier-grade NAT, multicast, reserved, unspecified, or an IPv4-mapped
 * form of one. What is not an IP address counts as private: it cannot be shown to be public.
 */
export function isPrivateAddress(address: string, ranges: BlockList = privateRanges()): boolean {
  const bare = bareAddress(address)
  const family = isIP(bare)
  if (family === 0) return true
  return ranges.check(bare, family === 4 ? "ipv4" : "ipv6")
}

/** An address as `net` takes it: without the brackets of a URL's host, nor an IPv6 zone (`%eth0`). */
export function bareAddress(address: string): string {
  return address.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "")
}
