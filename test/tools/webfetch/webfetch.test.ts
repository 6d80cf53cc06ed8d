import { gzipSync } from "node:zlib"
import { describe, expect, it } from "vitest"
import { WebFetchError, webfetchTool } from "../../../src/tools/webfetch/index.js"
import { rejectionOf, serversPerTest, toolContext } from "./server.js"

const serve = serversPerTest()

const MiB = 1024 * 1024
const PAGE = `<!doctype html><html><head><title>Guide</title><style>body { color: red }</style>
<script>alert("hi")</script><meta name="x" content="y"></head><body>
<h1>Install</h1><p>Run <em>this</em> &amp; that:</p>
<pre><code>npm install thing</code></pre>
<ul><li>one</li><li>two</li></ul><hr>
<noscript>Enable JavaScript</noscript><iframe src="x">frame text</iframe>
<p>Done.</p></body></html>`

const html = (body: string) => (_: unknown, response: import("node:http").ServerResponse) => {
  response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
  response.end(body)
}

const page = (text: string) => (_: unknown, response: import("node:http").ServerResponse) => {
  response.writeHead(200, { "content-type": "text/plain" })
  response.end(text)
}

// The local servers listen on 127.0.0.1, which the tool refuses unless the host allows it.
const tool = webfetchTool({ allowPrivate: true })

describe("webfetch", () => {
  it("converts HTML to markdown by default, asking webfetch with the URL first", async () => {
    const server = await serve(html(PAGE))
    const { run, asked } = toolContext()
    const result = await run(tool, { url: server.url("/guide") })
    expect(asked).toEqual([
      {
        permission: "webfetch",
        patterns: [server.url("/guide")],
        always: ["*"],
        metadata: { url: server.url("/guide"), format: "markdown", timeout: undefined },
      },
    ])
    expect(result.title).toBe(`${server.url("/guide")} (text/html; charset=utf-8)`)
    expect(result.output).toContain("# Install")
    expect(result.output).toContain("Run *this* & that:")
    expect(result.output).toContain("```\nnpm install thing\n```")
    expect(result.output).toMatch(/^- {1,3}one$/m)
    expect(result.output).toContain("---")
    expect(result.output).not.toContain("alert")
    expect(result.output).not.toContain("color: red")
  })

  it("returns the page's text without scripts, styles, noscript or frames in the text format", async () => {
    const server = await serve(html(PAGE))
    const { run } = toolContext()
    const { output } = await run(tool, { url: server.url(), format: "text" })
    for (const kept of ["Install", "Run this & that:", "npm install thing", "one", "two", "Done."])
      expect(output).toContain(kept)
    for (const dropped of ["alert", "color: red", "Enable JavaScript", "frame text", "<", "#", "```"])
      expect(output).not.toContain(dropped)
  })

  it("returns the HTML as it is in the html format", async () => {
    const server = await serve(html(PAGE))
    const { run } = toolContext()
    const { output } = await run(tool, { url: server.url(), format: "html" })
    expect(output).toBe(PAGE)
  })

  it("returns text that is not HTML as it is, decoding gzip and the charset", async () => {
    const server = await serve((request, response) => {
      if (request.url === "/data.json") {
        response.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" })
        response.end(gzipSync('{"a": "<b>"}'))
      } else {
        response.writeHead(200, { "content-type": "text/plain; charset=iso-8859-1" })
        response.end(Buffer.from("caf\xe9", "latin1"))
      }
    })
    const { run } = toolContext()
    expect((await run(tool, { url: server.url("/data.json") })).output).toBe('{"a": "<b>"}')
    expect((await run(tool, { url: server.url("/menu.txt"), format: "text" })).output).toBe("café")
  })

  it("returns an image as an attachment", async () => {
    const png = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex")
    const server = await serve((_, response) => {
      response.writeHead(200, { "content-type": "image/png" })
      response.end(png)
    })
    const { run } = toolContext()
    const result = await run(tool, { url: server.url("/logo.png") })
    expect(result.attachments).toEqual([
      { mime: "image/png", url: `data:image/png;base64,${png.toString("base64")}`, filename: "logo.png" },
    ])
  })

  it("cuts long output as the other built-in tools do", async () => {
    const server = await serve((_, response) => {
      response.writeHead(200, { "content-type": "text/plain" })
      response.end(Array.from({ length: 3000 }, (_, line) => `line ${line}`).join("\n"))
    })
    const { run } = toolContext()
    const { output } = await run(tool, { url: server.url() })
    expect(output).toContain("line 1999")
    expect(output).not.toContain("line 2000")
    expect(output).toContain("[Output truncated")
  })

  it("fails with the status on a non-2xx answer", async () => {
    const server = await serve((_, response) => {
      response.writeHead(404, { "content-type": "text/html" })
      response.end("<p>nothing here</p>")
    })
    const { run } = toolContext()
    const error = await rejectionOf(run(tool, { url: server.url("/missing") }))
    expect(WebFetchError.isInstance(error)).toBe(true)
    expect(error.message).toContain("Request failed with status code: 404")
    expect((error as WebFetchError).data).toMatchObject({ reason: "status", status: 404 })
  })

  it("tries once more with its own User-Agent when Cloudflare challenges the browser's", async () => {
    const agents: string[] = []
    const server = await serve((request, response) => {
      agents.push(request.headers["user-agent"] ?? "")
      if (request.headers["user-agent"]?.startsWith("Mozilla/")) {
        response.writeHead(403, { "cf-mitigated": "challenge" })
        response.end()
      } else page("through")(request, response)
    })
    const { run } = toolContext()
    expect((await run(tool, { url: server.url() })).output).toBe("through")
    expect(agents).toEqual([expect.stringMatching(/^Mozilla\//), "agentloop-sdk"])
    const error = await rejectionOf(
      run(webfetchTool({ allowPrivate: true, userAgent: "Mozilla/5.0 mine" }), { url: server.url() }),
    )
    expect((error as WebFetchError).data).toMatchObject({ reason: "status", status: 403 })
  })

  it("refuses what is not an http(s) URL before asking", async () => {
    const { run, asked } = toolContext()
    const error = await rejectionOf(run(tool, { url: "file:///etc/passwd" }))
    expect(error.message).toContain("URL must start with http:// or https://")
    expect(asked).toEqual([])
  })

  it("refuses a body over 5 MiB announced by content-length, closing the connection", async () => {
    const server = await serve((_, response) => {
      // Announced, then nothing: only the client can end this connection.
      response.writeHead(200, { "content-type": "text/plain", "content-length": String(6 * MiB) })
      response.flushHeaders()
    })
    const { run } = toolContext()
    const error = await rejectionOf(run(tool, { url: server.url() }))
    expect(WebFetchError.isInstance(error)).toBe(true)
    expect(error.message).toContain("Response too large (exceeds 5 MB limit)")
    await server.closedAtLeast(1)
  })

  it("stops reading a streamed body at 5 MiB and closes the connection", async () => {
    let written = 0
    const server = await serve((_, response) => {
      response.writeHead(200, { "content-type": "text/plain" })
      const chunk = Buffer.alloc(64 * 1024, "a")
      const pump = () => {
        // 6 MiB, then the response stays open: only the client can end this connection.
        while (written < 6 * MiB) {
          written += chunk.length
          if (!response.write(chunk)) return response.once("drain", pump)
        }
      }
      pump()
    })
    const { run } = toolContext()
    const error = await rejectionOf(run(tool, { url: server.url() }))
    expect(error.message).toContain("Response too large (exceeds 5 MB limit)")
    await server.closedAtLeast(1)
  })

  it("takes its cap from maxBytes", async () => {
    const server = await serve((_, response) => {
      response.writeHead(200, { "content-type": "text/plain" })
      response.end("x".repeat(2000))
    })
    const { run } = toolContext()
    const error = await rejectionOf(
      run(webfetchTool({ allowPrivate: true, maxBytes: 1000 }), { url: server.url() }),
    )
    expect((error as WebFetchError).data).toMatchObject({ reason: "too-large" })
    expect(error.message).toContain("1000 bytes")
  })

  it("gives up on a server that never answers after the timeout, closing the connection", async () => {
    const server = await serve(() => {})
    const { run } = toolContext()
    const started = performance.now()
    const error = await rejectionOf(run(tool, { url: server.url(), timeout: 1 }))
    expect(performance.now() - started).toBeLessThan(5000)
    expect((error as WebFetchError).data).toMatchObject({ reason: "timeout" })
    expect(error.message).toContain("timed out")
    await server.closedAtLeast(1)
  })

  it("gives up on a body that stalls half way after the timeout", async () => {
    const server = await serve((_, response) => {
      response.writeHead(200, { "content-type": "text/plain" })
      response.write("the beginning")
    })
    const { run } = toolContext()
    const error = await rejectionOf(run(tool, { url: server.url(), timeout: 1 }))
    expect((error as WebFetchError).data).toMatchObject({ reason: "timeout" })
    await server.closedAtLeast(1)
  })

  it("stops when the call is aborted", async () => {
    const server = await serve(() => {})
    const controller = new AbortController()
    const { run } = toolContext(controller.signal)
    const pending = rejectionOf(run(tool, { url: server.url() }))
    while (server.seen.requests === 0) await new Promise((resolve) => setImmediate(resolve))
    controller.abort()
    await pending
    await server.closedAtLeast(1)
  })

  it("follows redirects, at most five", async () => {
    const server = await serve((request, response) => {
      const hop = Number(request.url?.slice(1))
      if (hop < 9) {
        response.writeHead(302, { location: `/${hop + 1}` })
        response.end()
      } else html("<p>landed</p>")(request, response)
    })
    const { run } = toolContext()
    expect((await run(tool, { url: server.url("/4") })).output).toBe("landed")
    const error = await rejectionOf(run(tool, { url: server.url("/3") }))
    expect((error as WebFetchError).data).toMatchObject({ reason: "redirects" })
  })
})
