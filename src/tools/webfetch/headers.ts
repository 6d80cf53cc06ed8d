/** What the model may ask webfetch to return. */
export type Format = "text" | "markdown" | "html"

// OpenCode's Accept headers: the asked format first, the others as fallbacks.
const ACCEPT: Record<Format, string> = {
  markdown: "text/markdown;q=1.0, text/x-markdown;q=0.9, text/plain;q=0.8, text/html;q=0.7, */*;q=0.1",
  text: "text/plain;q=1.0, text/markdown;q=0.9, text/html;q=0.8, */*;q=0.1",
  html: "text/html;q=1.0, application/xhtml+xml;q=0.9, text/plain;q=0.8, text/markdown;q=0.7, */*;q=0.1",
}

/** The headers of every request of a fetch in `format`. */
export function requestHeaders(format: Format, userAgent: string): Record<string, string> {
  return {
    "user-agent": userAgent,
    accept: ACCEPT[format],
    "accept-language": "en-US,en;q=0.9",
    "accept-encoding": "gzip, deflate, br",
  }
}
