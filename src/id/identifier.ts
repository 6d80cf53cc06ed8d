import { randomInt } from "node:crypto"
import { decodeTime, encodeTime, ulid } from "ulid"
import { z } from "zod"
import { InvalidInputError } from "../error/invalid-input.js"
import { quote } from "../error/quote.js"

const prefixes = {
  session: "ses",
  message: "msg",
  part: "prt",
  permission: "per",
  question: "que",
} as const

export type Kind = keyof typeof prefixes
export type Prefix = (typeof prefixes)[Kind]

const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
const BODY_LENGTH = 26
const TIME_LENGTH = 10
const RANDOM_LENGTH = BODY_LENGTH - TIME_LENGTH
const RANDOM_SPACE = 32n ** BigInt(RANDOM_LENGTH)
// An ID floored on another in its millisecond steps its random part up by 1 to 2^40, at random:
// writers that floor on the same ID (two runtimes, two processes, calls without a generator)
// must not all pick floor + 1. 2^80 / 2^40 leaves room for a trillion steps in one millisecond.
const MAX_STEP = 2 ** 40
// The first character of an ascending ULID is 0-7 (48-bit time), so a descending body,
// being its base-32 complement, always starts with R-Z. That keeps the two kinds apart.
const DESCENDING_FIRST = new Set(ALPHABET.slice(24))
const BODY = new RegExp(`^[${ALPHABET}]{${BODY_LENGTH}}$`)

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

/** A new ID that sorts after every earlier one; strictly after `after` when given. */
export function ascending(kind: Kind, after?: string): string {
  const floor = after === undefined ? undefined : bodyOf(after, "after")
  return `${prefixes[kind]}_${ascendingBody(Date.now(), floor)}`
}

/** A new ID that sorts before every earlier one (newest first); strictly before `before` when given. */
export function descending(kind: Kind, before?: string): string {
  const ceiling = before === undefined ? undefined : complement(bodyOf(before, "before"))
  return `${prefixes[kind]}_${complement(ascendingBody(Date.now(), ceiling))}`
}

/** Creation time of an ascending or descending ID, in epoch milliseconds. */
export function timestamp(id: string): number {
  const body = bodyOf(id, "id")
  const ascendingForm = DESCENDING_FIRST.has(body[0]!) ? complement(body) : body
  return decodeTime(ascendingForm)
}

export type Generator = {
  ascending(kind: Kind, after?: string): string
  descending(kind: Kind, before?: string): string
}

/**
 * A monotonic generator: each ID it makes sorts strictly after (or, descending, before) the
 * previous one it made, even when the clock steps backwards. A runtime owns one.
 */
export function createGenerator(now: () => number = Date.now): Generator {
  let lastAscending: string | undefined
  let lastDescending: string | undefined
  return {
    ascending(kind, after) {
      const floor = maxBody(lastAscending, after === undefined ? undefined : bodyOf(after, "after"))
      lastAscending = ascendingBody(now(), floor)
      return `${prefixes[kind]}_${lastAscending}`
    },
    descending(kind, before) {
      const ceiling = maxBody(
        lastDescending,
        before === undefined ? undefined : complement(bodyOf(before, "before")),
      )
      lastDescending = ascendingBody(now(), ceiling)
      return `${prefixes[kind]}_${complement(lastDescending)}`
    },
  }
}

function ascendingBody(time: number, floor: string | undefined): string {
  if (floor === undefined) return ulid(time)
  const floorTime = decodeTime(floor)
  if (time > floorTime) return ulid(time)
  const random = decodeBase32(floor.slice(TIME_LENGTH)) + 1n + BigInt(randomInt(MAX_STEP))
  // 80 random bits exhausted within one millisecond: move to the next millisecond.
  if (random >= RANDOM_SPACE) return ulid(floorTime + 1)
  return encodeTime(floorTime, TIME_LENGTH) + encodeBase32(random, RANDOM_LENGTH)
}

function decodeBase32(text: string): bigint {
  let value = 0n
  for (const char of text) value = value * 32n + BigInt(ALPHABET.indexOf(char))
  return value
}

function encodeBase32(value: bigint, length: number): string {
  let out = ""
  for (let rest = value, index = 0; index < length; index++, rest /= 32n)
    out = ALPHABET[Number(rest % 32n)] + out
  return out
}

function maxBody(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b
  if (b === undefined) return a
  return a > b ? a : b
}

function complement(body: string): string {
  let out = ""
  for (const char of body) out += ALPHABET[31 - ALPHABET.indexOf(char)]
  return out
}

function bodyOf(id: string, field: string): string {
  const separator = typeof id === "string" ? id.indexOf("_") : -1
  const body = separator === -1 ? "" : id.slice(separator + 1)
  const prefix = separator === -1 ? "" : id.slice(0, separator)
  if (!(Object.values(prefixes) as string[]).includes(prefix) || !BODY.test(body)) {
    const message = `expected an agentloop ID such as ses_01J…, got ${quote(id)}`
    throw new InvalidInputError({
      message: `Invalid ${field}: ${message}`,
      issues: [{ path: field, message }],
    })
  }
  return body
}
