import { z } from "zod"
import { define, type Result, type ToolInfo } from "../../tool/tool.js"
import { truncateOutput } from "../../tool/truncate.js"
import { createConverters } from "./convert.js"
import { WebFetchError } from "./errors.js"
import { fetchPage, type Page } from "./fetch-page.js"
import { type Format, requestHeaders } from "./headers.js"
import { DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, settingsOf, type WebFetchOptions } from "./options.js"
import { refuseAddressLiteral } from "./request.js"

// As the read tool: attachments are stored on the part and sent to the model as they are.
const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024

const Parameters = z.object({
  url: z.string().min(1).describe("The URL to fetch: complete, starting with http:// or https://"),
  format: z
    .enum(["text", "markdown", "html"])
    .default("markdown")
    .describe(
      "What to return: markdown (default; HTML converted), text (the page's text only) or html (as served)",
    ),
  timeout: z.coerce
    .number()
    .positive()
    .optional()
    .describe(`Timeout in seconds (default ${DEFAULT_TIMEOUT_MS / 1000}, at most ${MAX_TIMEOUT_MS / 1000})`),
})

const BROWSER_AGENT =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/143.0.0.0 Safari/537.36"

/**
 * The `webfetch` tool: fetches a URL and returns it as markdown, text or HTML (images as
 * attachments). Asks `webfetch` with the URL before any request. Refuses non-public addresses
 * unless `allowPrivate` allows them (see BlockedAddressError). Requests go straight to the
 * server: HTTP_PROXY and HTTPS_PROXY are not honoured.
 */
export function webfetchTool(options: WebFetchOptions = {}): ToolInfo<typeof Parameters> {
  const { policy, maxBytes, timeoutMs: defaultTimeoutMs, maxRedirects, userAgent } = settingsOf(options)
  const converters = createConverters()
  return define("webfetch", {
    description: description({ maxBytes, maxRedirects, timeoutMs: defaultTimeoutMs }),
    fileChanges: "none",
    parameters: Parameters,
    async execute(args, context) {
      const url = httpURL(args.url)
      refuseAddressLiteral(url, policy)
      const ask = (target: string, redirectedFrom?: string) =>
        context.ask({
          permission: "webfetch",
          patterns: [target],
          always: ["*"],
          metadata: { url: target, format: args.format, timeout: args.timeout, redirectedFrom },
        })
      await ask(args.url)
      const page = await fetchPage({
        url,
        policy,
        headers: requestHeaders(args.format, userAgent ?? BROWSER_AGENT),
        maxBytes,
        maxRedirects,
        timeoutMs: timeoutOf(args.timeout, defaultTimeoutMs),
        signal: context.abort,
        // The rules see every URL fetched: an open redirect on an allowed site leads nowhere they deny.
        beforeRedirect: (to, from) => ask(to.href, from.href),
        ...(userAgent === undefined ? { retryUserAgent: "agentloop-sdk" } : {}),
      })
      return present(page, args.format, converters)
    },
  })
}

/** The model's timeout (seconds) capped at 120 s, or at the host's default when that is longer. */
function timeoutOf(seconds: number | undefined, defaultMs: number): number {
  if (seconds === undefined) return defaultMs
  return Math.min(seconds * 1000, Math.max(MAX_TIMEOUT_MS, defaultMs))
}

async function present(
  page: Page,
  format: Format,
  converters: ReturnType<typeof createConverters>,
): Promise<Result> {
  const mime = page.contentType.split(";")[0]?.trim().toLowerCase() ?? ""
  const title = `${page.url} (${page.contentType})`
  if (isImage(mime)) return image(page, mime, title)
  const content = decode(page.body, page.contentType)
  const html = mime === "text/html" || mime === "application/xhtml+xml"
  const converted =
    html && format === "markdown"
      ? (await converters()).markdown(content)
      : html && format === "text"
        ? (await converters()).text(content)
        : content
  const { output, truncated } = truncateOutput(converted)
  return {
    title,
    output,
    metadata: { url: page.url, contentType: page.contentType, bytes: page.body.length, truncated },
  }
}

function image(page: Page, mime: string, title: string): Result {
  if (page.body.length > MAX_ATTACHMENT_BYTES) throw WebFetchError.tooLarge(page.url, MAX_ATTACHMENT_BYTES)
  const filename = fileNameOf(new URL(page.url))
  return {
    title,
    output: `Image fetched: ${page.url} (${page.body.length} bytes, attached)`,
    metadata: { url: page.url, contentType: page.contentType, bytes: page.body.length },
    attachments: [
      { mime, url: `data:${mime};base64,${page.body.toString("base64")}`, ...(filename ? { filename } : {}) },
    ],
  }
}

/** The URL's last path segment, decoded (as it was when that fails), or "" for a directory. */
function fileNameOf(url: URL): string {
  const last = url.pathname.split("/").pop() ?? ""
  try {
    return decodeURIComponent(last)
  } catch {
    return last
  }
}

// SVG is text (and markup); OpenCode leaves it, and one odd image/ type, out of attachments too.
function isImage(mime: string): boolean {
  return mime.startsWith("image/") && mime !== "image/svg+xml" && mime !== "image/vnd.fastbidsheet"
}

/** The body as text, in the charset its content-type names (UTF-8 when it names none Node knows). */
function decode(body: Buffer, contentType: string): string {
  const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1]
  try {
    return new TextDecoder(charset ?? "utf-8").decode(body)
  } catch {
    return new TextDecoder().decode(body)
  }
}

function httpURL(text: string): URL {
  const url = URL.canParse(text) ? new URL(text) : undefined
  if (url?.protocol === "http:" || url?.protocol === "https:") return url
  const message = `URL must start with http:// or https:// and be complete: ${text}`
  throw new WebFetchError({ message, url: text, reason: "invalid-url" })
}

function description(limits: { maxBytes: number; maxRedirects: number; timeoutMs: number }): string {
  const { maxBytes, maxRedirects, timeoutMs } = limits
  const size = maxBytes % (1024 * 1024) === 0 ? `${maxBytes / (1024 * 1024)} MB` : `${maxBytes} bytes`
  return `Fetches a URL and returns its content as markdown (default), text or HTML.
- Use it to read a web page, documentation or an API response the task needs. It changes no file.
- The URL must be complete and start with http:// or https://. Redirects are followed (at most ${maxRedirects}).
- format "markdown" converts HTML to markdown; "text" returns only the page's text; "html" returns the HTML as served. Other text (JSON, plain text, markdown) comes back as it is; images come back as attachments.
- Responses over ${size} are refused. The default timeout is ${timeoutMs / 1000} seconds; give timeout (seconds, at most ${Math.max(MAX_TIMEOUT_MS, timeoutMs) / 1000}) for a slow server. Long output is cut.
- Addresses on this machine and on private networks (localhost, 10.x, 192.168.x, 169.254.x...) are refused unless the host application allows them.
- If another tool offers better web fetching or fewer limits, prefer it.`
}
