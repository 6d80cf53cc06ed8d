import type { ServerResponse } from "node:http"
import { describe, expect, it } from "vitest"
import { BlockedAddressError, webfetchTool } from "../../../src/tools/webfetch/index.js"
import { rejectionOf, serversPerTest, socketsOpenedBy, toolContext } from "./server.js"

const serve = serversPerTest()

const page = (text: string) => (_: unknown, response: ServerResponse) => {
  response.writeHead(200, { "content-type": "text/plain" })
  response.end(text)
}
const redirectTo = (location: string) => (_: unknown, response: ServerResponse) => {
  response.writeHead(302, { location })
  response.end()
}

describe("webfetch and private networks", () => {
  it("refuses the cloud metadata address without opening a connection", async () => {
    const { run, asked } = toolContext()
    const { count, result } = await socketsOpenedBy(() =>
      run(webfetchTool(), { url: "http://169.254.169.254/latest/meta-data/" }),
    )
    expect(count).toBe(0)
    expect(result.status).toBe("rejected")
    const error = (result as PromiseRejectedResult).reason
    expect(BlockedAddressError.isInstance(error)).toBe(true)
    expect(error.data).toEqual({
      message: expect.stringContaining("private"),
      url: "http://169.254.169.254/latest/meta-data/",
      address: "169.254.169.254",
    })
    expect(error.message).toContain("host")
    // An address refused whatever the answer is not asked about.
    expect(asked).toEqual([])
  })

  it("refuses loopback literals in every spelling, with no request reaching the server", async () => {
    const server = await serve(page("secret"))
    const { run } = toolContext()
    for (const url of [
      server.url(),
      `http://[::ffff:127.0.0.1]:${server.port}/`,
      `http://2130706433:${server.port}/`,
      `http://0x7f.1:${server.port}/`,
      `http://[::1]:${server.port}/`,
    ]) {
      const error = await rejectionOf(run(webfetchTool(), { url }))
      expect(BlockedAddressError.isInstance(error), url).toBe(true)
    }
    expect(server.seen.connections).toBe(0)
  })

  it("refuses a name that resolves to a private address (the lookup path)", async () => {
    const server = await serve(page("secret"))
    const { run } = toolContext()
    for (const scheme of ["http", "https"]) {
      const url = `${scheme}://localhost:${server.port}/`
      const error = await rejectionOf(run(webfetchTool(), { url }))
      expect(BlockedAddressError.isInstance(error), url).toBe(true)
      expect((error as BlockedAddressError).data.address).toMatch(/^(127\.0\.0\.1|::1)$/)
    }
    expect(server.seen.connections).toBe(0)
  })

  it("allows everything with allowPrivate: true, redirects included", async () => {
    const target = await serve(page("inside"))
    const start = await serve(redirectTo(target.url("/page")))
    const { run, asked } = toolContext()
    const result = await run(webfetchTool({ allowPrivate: true }), { url: start.url() })
    expect(result.output).toBe("inside")
    // The redirect's URL is asked about too, so the rules see every URL fetched.
    expect(asked.map(({ patterns, metadata }) => [patterns, metadata?.redirectedFrom])).toEqual([
      [[start.url()], undefined],
      [[target.url("/page")], start.url()],
    ])
  })

  it("lets an allowed origin through but refuses its redirect to another private origin", async () => {
    const other = await serve(page("secret"))
    const allowed = await serve((request, response) => {
      if (request.url === "/self") redirectTo("/page")(request, response)
      else if (request.url === "/page") page("allowed")(request, response)
      else redirectTo(other.url("/admin"))(request, response)
    })
    const { run } = toolContext()
    const tool = webfetchTool({ allowPrivate: [allowed.origin] })
    expect((await run(tool, { url: allowed.url("/self") })).output).toBe("allowed")
    const error = await rejectionOf(run(tool, { url: allowed.url("/elsewhere") }))
    expect(BlockedAddressError.isInstance(error)).toBe(true)
    expect((error as BlockedAddressError).data).toMatchObject({
      url: other.url("/admin"),
      address: "127.0.0.1",
    })
    expect(other.seen.connections).toBe(0)
  })

  it("allows the addresses of a listed CIDR on every hop", async () => {
    const target = await serve(page("inside"))
    const start = await serve(redirectTo(target.url()))
    const { run } = toolContext()
    const result = await run(webfetchTool({ allowPrivate: ["127.0.0.0/8"] }), { url: start.url() })
    expect(result.output).toBe("inside")
    const error = await rejectionOf(run(webfetchTool({ allowPrivate: ["10.0.0.0/8"] }), { url: start.url() }))
    expect(BlockedAddressError.isInstance(error)).toBe(true)
  })

  it("rejects an allowPrivate entry that is neither an origin nor a CIDR when the tool is made", () => {
    expect(() => webfetchTool({ allowPrivate: ["not an origin"] })).toThrow(/allowPrivate/)
  })
})
