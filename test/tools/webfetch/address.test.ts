import { describe, expect, it } from "vitest"
import { isPrivateAddress } from "../../../src/tools/webfetch/address.js"

describe("isPrivateAddress", () => {
  it("covers loopback, link-local, private, CGNAT, multicast, reserved and unspecified ranges", () => {
    for (const address of [
      "127.0.0.1",
      "127.255.255.254",
      "10.1.2.3",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "100.127.255.255",
      "0.0.0.0",
      "192.0.0.170",
      "198.18.0.1",
      "224.0.0.251",
      "239.255.255.250",
      "240.0.0.1",
      "255.255.255.255",
      "::",
      "::1",
      "fc00::1",
      "fd12:3456::1",
      "fe80::1",
      "FE80::abcd",
      "ff02::1",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "::ffff:a9fe:a9fe",
      "::ffff:10.0.0.1",
      "::127.0.0.1",
    ])
      expect(isPrivateAddress(address), address).toBe(true)
  })

  it("leaves public addresses alone", () => {
    for (const address of [
      "8.8.8.8",
      "1.1.1.1",
      "172.32.0.1",
      "100.128.0.1",
      "192.169.0.1",
      "2606:4700:4700::1111",
      "2001:4860:4860::8888",
      "::ffff:8.8.8.8",
    ])
      expect(isPrivateAddress(address), address).toBe(false)
  })
})
