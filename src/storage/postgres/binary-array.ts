/** PostgreSQL's type OIDs of the array elements sent here. */
const TEXT_OID = 25
const BYTEA_OID = 17
const HEADER_BYTES = 20

/**
 * A `text[]` parameter in PostgreSQL's binary array format (what `array_recv` reads): each
 * string's UTF-8 bytes behind its length. node-postgres sends a Buffer parameter in binary, as it
 * is; an array of strings it would write as an array literal, escaping every quote and backslash
 * of every JSON row, which cost more than the server's whole insert (bench/README.md).
 */
export function textArray(items: readonly string[]): Buffer {
  const lengths = items.map((item) => Buffer.byteLength(item))
  const buffer = arrayBuffer(TEXT_OID, lengths)
  let offset = HEADER_BYTES
  for (const [index, item] of items.entries()) {
    buffer.writeInt32BE(lengths[index]!, offset)
    offset += 4 + buffer.write(item, offset + 4)
  }
  return buffer
}

/** A `bytea[]` parameter in the same format. */
export function byteaArray(items: readonly Buffer[]): Buffer {
  const buffer = arrayBuffer(
    BYTEA_OID,
    items.map((item) => item.length),
  )
  let offset = HEADER_BYTES
  for (const item of items) {
    buffer.writeInt32BE(item.length, offset)
    offset += 4 + item.copy(buffer, offset + 4)
  }
  return buffer
}

/** A buffer for a one-dimensional array of elements of these byte lengths, its header written. */
function arrayBuffer(elementOid: number, lengths: readonly number[]): Buffer {
  const size = lengths.reduce((sum, length) => sum + 4 + length, HEADER_BYTES)
  const buffer = Buffer.allocUnsafe(size)
  buffer.writeInt32BE(1, 0) // dimensions
  buffer.writeInt32BE(0, 4) // no NULL elements
  buffer.writeInt32BE(elementOid, 8)
  buffer.writeInt32BE(lengths.length, 12)
  buffer.writeInt32BE(1, 16) // lower bound
  return buffer
}
