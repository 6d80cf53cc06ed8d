import { randomFillSync } from "node:crypto"
import { z } from "zod"
import { InvalidInputError } from "../error/invalid-input.js"
import { quote } from "../error/quote.js"
import { ALPHABET, decodeBodyTime, encodeTime, TIME_LENGTH, TIME_MAX, VALUE } from "./base32.js"

const prefixes = {
  session: "ses",
  message: "msg",
  part: "prt",
  permission: "per",
  question: "que",
} as const

/** What an ID identifies: "session", "message", "part", "permission" or "question". */
export type Kind = keyof typeof prefixes
/** The prefix of a kind's IDs, before the `_`: "ses", "msg", "prt", "per" or "que". */
export type Prefix = (typeof prefixes)[Kind]

const BODY_LENGTH = 26
const RANDOM_LENGTH = BODY_LENGTH - TIME_LENGTH
// An ID floored on another in its millisecond steps its random part up by 1 to 2^40, at random:
// writers that floor on the same ID (two runtimes, two processes, calls without a generator)
// must not all pick floor + 1. 2^80 / 2^40 leaves room for a trillion steps in one millisecond.
// The random step is 8 base-32 digits (40 bits) added to the low end of the 16-digit random part.
const STEP_LENGTH = 8
// The first character of an ascending ULID is 0-7 (48-bit time), so a descending body,
// being its base-32 complement, always starts with R-Z. That keeps the two kinds apart.
const DESCENDING_FIRST = new Set(ALPHABET.slice(24))
const PREFIXES: ReadonlySet<string> = new Set(Object.values(prefixes))
const BODY = new RegExp(`^[${ALPHABET}]{${BODY_LENGTH}}$`)
/** How many random bytes a generator draws from the system at a time. */
const RANDOM_BATCH = 4096

/** Whether `value` is an ID of this kind: `<prefix>_` followed by 26 Crockford base-32 characters. */
export function isID(kind: Kind, value: unknown): value is string {
  const prefix = `${prefixes[kind]}_`
  return typeof value === "string" && value.startsWith(prefix) && BODY.test(value.slice(prefix.length))
}

/** Zod schema for an ID of one kind: `<prefix>_` followed by 26 Crockford base-32 characters. */
export function schema<K extends Kind>(kind: K) {
  const prefix = `${prefixes[kind]}_`
  return z.string().refine((value) => value.startsWith(prefix) && BODY.test(value.slice(prefix.length)), {
    message: `expected a ${kind} ID (${prefix} followed by 26 base-32 characters)`,
  })
}

/**
 * A new ID that sorts after every earlier one; strictly after `after` when given. Without a
 * generator there is no state to keep: each call draws its random bits from the system in one
 * call. A runtime uses its own generator (`createGenerator`), which draws them in batches.
 */
export function ascending(kind: Kind, after?: string): string {
  const floor = after === undefined ? undefined : floorOf(after, "after")
  return `${prefixes[kind]}_${ascendingBody(Date.now(), floor, randomDigits(RANDOM_LENGTH + STEP_LENGTH))}`
}

/** A new ID that sorts before every earlier one (newest first); strictly before `before` when given. */
export function descending(kind: Kind, before?: string): string {
  const ceiling = before === undefined ? undefined : ceilingOf(before, "before")
  const digits = randomDigits(RANDOM_LENGTH + STEP_LENGTH)
  return `${prefixes[kind]}_${complement(ascendingBody(Date.now(), ceiling, digits))}`
}

/** Creation time of an ascending or descending ID, in epoch milliseconds. */
export function timestamp(id: string): number {
  const body = bodyOf(id, "id")
  const ascendingForm = DESCENDING_FIRST.has(body[0]!) ? complement(body) : body
  const time = decodeBodyTime(ascendingForm)
  if (time > TIME_MAX) throw notAnID(id, "id", "an ascending or descending ID, whose time fits in 48 bits")
  return time
}

/**
 * A monotonic ID maker, from `createGenerator`: what a runtime makes its IDs with. Pass one where
 * a function takes `ids` (the testing builders) so that IDs made in one millisecond, or after the
 * clock stepped back, still sort in the order they were made. Both methods throw
 * InvalidInputError when the floor or ceiling is not an ID of the right direction, or when the
 * clock gives a time a ULID cannot hold.
 */
export type Generator = {
  /** An ID that sorts after every earlier one this generator made, and strictly after `after` when given. */
  ascending(kind: Kind, after?: string): string
  /** An ID that sorts before every earlier one this generator made, and strictly before `before` when given. */
  descending(kind: Kind, before?: string): string
}

/** Fills a byte array with cryptographically strong random bytes, as `crypto.randomFillSync` does. */
export type RandomFill = (bytes: Uint8Array) => unknown

/**
 * A monotonic generator: each ID it makes sorts strictly after (or, descending, before) the
 * previous one it made, even when the clock steps backwards. A runtime owns one.
 *
 * Its random bits come from a buffer it refills 4 KiB at a time (`random`, by default
 * `crypto.randomFillSync`): one refill serves 256 to 512 IDs (16 bytes for a fresh random part,
 * 8 for a step), where the `ulid` package made one system call per character. The buffer
 * belongs to this generator alone: two generators never share bits.
 */
export function createGenerator(
  now: () => number = Date.now,
  random: RandomFill = randomFillSync,
): Generator {
  const digit = randomDigits(RANDOM_BATCH, random)
  let lastAscending: string | undefined
  let lastDescending: string | undefined
  return {
    ascending(kind, after) {
      const floor = maxBody(lastAscending, after === undefined ? undefined : floorOf(after, "after"))
      lastAscending = ascendingBody(now(), floor, digit)
      return `${prefixes[kind]}_${lastAscending}`
    },
    descending(kind, before) {
      const ceiling = maxBody(lastDescending, before === undefined ? undefined : ceilingOf(before, "before"))
      lastDescending = ascendingBody(now(), ceiling, digit)
      return `${prefixes[kind]}_${complement(lastDescending)}`
    },
  }
}

/**
 * A source of random base-32 digit values (0-31), read from a buffer of `size` bytes that is
 * refilled when used up. A byte's low 5 bits are uniform because 256 is a multiple of 32.
 */
function randomDigits(size: number, random: RandomFill = randomFillSync): () => number {
  const buffer = new Uint8Array(size)
  let offset = size
  return () => {
    if (offset === size) {
      random(buffer)
      offset = 0
    }
    return buffer[offset++]! & 31
  }
}

/**
 * An ascending body (time + random part) for `time`, strictly above `floor` when given: a fresh
 * random part when `time` is past the floor's millisecond, else the floor's random part plus a
 * random step (see STEP_LENGTH above), carrying into the next millisecond when that overflows.
 */
function ascendingBody(time: number, floor: string | undefined, digit: () => number): string {
  if (floor !== undefined) {
    const floorTime = decodeBodyTime(floor)
    if (time <= floorTime) {
      const stepped = stepRandom(floor, digit)
      if (stepped !== undefined) return floor.slice(0, TIME_LENGTH) + stepped
      // 80 random bits exhausted within one millisecond: move to the next millisecond.
      time = floorTime + 1
    }
  }
  let random = ""
  for (let index = 0; index < RANDOM_LENGTH; index++) random += ALPHABET[digit()]
  return encodeTime(time) + random
}

/**
 * The random part of `body` (its last 16 digits, an 80-bit number) plus 1 + a random 40-bit
 * number, added digit by digit; undefined when the sum no longer fits in 80 bits.
 */
function stepRandom(body: string, digit: () => number): string | undefined {
  const sum = new Array<number>(RANDOM_LENGTH)
  let carry = 1
  for (let index = RANDOM_LENGTH - 1; index >= 0; index--) {
    const step = index >= RANDOM_LENGTH - STEP_LENGTH ? digit() : 0
    const value = VALUE[body[TIME_LENGTH + index]!]! + step + carry
    sum[index] = value & 31
    carry = value >> 5
  }
  if (carry !== 0) return undefined
  let out = ""
  for (const value of sum) out += ALPHABET[value]
  return out
}

function maxBody(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b
  if (b === undefined) return a
  return a > b ? a : b
}

function complement(body: string): string {
  let out = ""
  for (const char of body) out += ALPHABET[31 - VALUE[char]!]
  return out
}

/** The body of an ascending ID given as a floor. */
function floorOf(id: string, field: string): string {
  const body = bodyOf(id, field)
  if (decodeBodyTime(body) > TIME_MAX) throw notAnID(id, field, "an ascending ID (msg_, prt_, per_, que_)")
  return body
}

/** The ascending form of a descending ID given as a ceiling. */
function ceilingOf(id: string, field: string): string {
  const body = complement(bodyOf(id, field))
  if (decodeBodyTime(body) > TIME_MAX) throw notAnID(id, field, "a descending ID (ses_)")
  return body
}

function bodyOf(id: string, field: string): string {
  const separator = typeof id === "string" ? id.indexOf("_") : -1
  const body = separator === -1 ? "" : id.slice(separator + 1)
  const prefix = separator === -1 ? "" : id.slice(0, separator)
  if (!PREFIXES.has(prefix) || !BODY.test(body)) throw notAnID(id, field, "an agentloop ID such as ses_01J…")
  return body
}

function notAnID(id: unknown, field: string, expected: string): InvalidInputError {
  const message = `expected ${expected}, got ${quote(id)}`
  return new InvalidInputError({
    message: `Invalid ${field}: ${message}`,
    issues: [{ path: field, message }],
  })
}
