/**
 * Keys of the key-value area as bytes: each UTF-16 code unit as two bytes, big-endian. PostgreSQL
 * text can hold neither NUL nor a lone surrogate, and its collations do not order strings as
 * JavaScript does; these bytes hold any string, and `bytea` compares them as JavaScript
 * compares strings (code unit by code unit), so a prefix listing is an index range in the
 * order the Storage contract promises.
 */
export function encodeKey(key: string): Buffer {
  const bytes = Buffer.allocUnsafe(key.length * 2)
  for (let index = 0; index < key.length; index++) bytes.writeUInt16BE(key.charCodeAt(index), index * 2)
  return bytes
}

export function decodeKey(bytes: Buffer): string {
  const units: number[] = []
  for (let offset = 0; offset < bytes.length; offset += 2) units.push(bytes.readUInt16BE(offset))
  // In slices: a spread of a very long key's units would overflow the call stack.
  let key = ""
  for (let start = 0; start < units.length; start += 4096)
    key += String.fromCharCode(...units.slice(start, start + 4096))
  return key
}

/**
 * The smallest byte string above every one that starts with `prefix`: the prefix with its last
 * byte below 0xff raised by one and what follows cut off. Undefined when there is none (an
 * empty prefix, or only 0xff bytes), and then the range has no upper end.
 */
export function prefixEnd(prefix: Buffer): Buffer | undefined {
  for (let index = prefix.length - 1; index >= 0; index--) {
    if (prefix[index]! < 0xff) {
      const end = Buffer.from(prefix.subarray(0, index + 1))
      end[index]! += 1
      return end
    }
  }
  return undefined
}
