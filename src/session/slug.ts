import { randomInt } from "node:crypto"

const adjectives = [
  "brave",
  "calm",
  "clever",
  "eager",
  "gentle",
  "happy",
  "keen",
  "lucky",
  "mellow",
  "nimble",
  "proud",
  "quiet",
  "swift",
  "tidy",
  "witty",
  "zesty",
]
const nouns = [
  "badger",
  "comet",
  "falcon",
  "harbor",
  "lantern",
  "maple",
  "meadow",
  "otter",
  "pebble",
  "river",
  "sparrow",
  "summit",
  "thistle",
  "willow",
  "zephyr",
  "canyon",
]

/** A short, human-friendly handle for a session, e.g. "swift-otter". Not unique; the ID is. */
export function createSlug(): string {
  return `${adjectives[randomInt(adjectives.length)]}-${nouns[randomInt(nouns.length)]}`
}
