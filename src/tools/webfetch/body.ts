import type { IncomingMessage } from "node:http"
import { pipeline, type Readable } from "node:stream"
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib"
import { WebFetchError } from "./errors.js"

/**
 * Reads `response`'s body, decoded as its content-encoding says (gzip, deflate, br), and stops
 * at the first byte past `maxBytes` with WebFetchError "too-large" (the caller closes the
 * connection): an announced content-length over the cap stops before reading anything, and a
 * decoded body that grows past it (a compression bomb included) stops as it does.
 */
export async function readBody(response: IncomingMessage, url: string, maxBytes: number): Promise<Buffer> {
  const declared = Number(response.headers["content-length"])
  if (Number.isFinite(declared) && declared > maxBytes) throw WebFetchError.tooLarge(url, maxBytes)
  const chunks: Buffer[] = []
  let total = 0
  for await (const chunk of decoded(response)) {
    total += (chunk as Buffer).length
    if (total > maxBytes) throw WebFetchError.tooLarge(url, maxBytes)
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks)
}

function decoded(response: IncomingMessage): Readable {
  const encoding = String(response.headers["content-encoding"] ?? "")
    .trim()
    .toLowerCase()
  const decoder =
    encoding === "gzip" || encoding === "x-gzip"
      ? createGunzip()
      : encoding === "deflate"
        ? createInflate()
        : encoding === "br"
          ? createBrotliDecompress()
          : undefined
  // pipeline destroys each stream when one fails, so an aborted response fails the decoder too.
  return decoder ? pipeline(response, decoder, () => {}) : response
}
