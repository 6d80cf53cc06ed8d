import { InvalidInputError } from "../error/invalid-input.js"
import { quote } from "../error/quote.js"

/**
 * The ULID encoding agentloop's ID bodies use: Crockford's base 32, the first 10 characters a
 * millisecond time. Here rather than from the `ulid` package so that loading the package does
 * not load that one too (a few milliseconds of a process's start).
 */
export const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
export const TIME_LENGTH = 10
// 48-bit time: the largest time a body's first 10 characters can hold ("7ZZZZZZZZZ").
export const TIME_MAX = 2 ** 48 - 1
/** Each base-32 character's value (a frozen lookup table; never written after this line). */
export const VALUE: Readonly<Record<string, number>> = Object.freeze(
  Object.fromEntries([...ALPHABET].map((char, index) => [char, index])),
)

/** A millisecond time as 10 base-32 characters, a ULID's first; refuses what a ULID cannot hold. */
export function encodeTime(time: number): string {
  if (!Number.isInteger(time) || time < 0 || time > TIME_MAX) {
    const message = `expected the clock to give whole milliseconds from 0 to 2^48 - 1, got ${quote(time)}`
    throw new InvalidInputError({ message: `Invalid time: ${message}`, issues: [{ path: "time", message }] })
  }
  let out = ""
  for (let rest = time, index = 0; index < TIME_LENGTH; index++, rest = Math.floor(rest / 32))
    out = ALPHABET[rest % 32] + out
  return out
}

/**
 * The time in a body's first 10 characters (base-32 digits, checked by the caller): above
 * TIME_MAX when the first is past 7, which no ascending body has.
 */
export function decodeBodyTime(body: string): number {
  let time = 0
  for (let index = 0; index < TIME_LENGTH; index++) time = time * 32 + VALUE[body[index]!]!
  return time
}
