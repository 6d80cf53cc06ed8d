/**
 * A seeded pseudo-random generator (mulberry32): the same seed gives the same trial, so a failing
 * trial is reproduced with `--seed`. Math.random cannot be seeded.
 */
export type Random = () => number

export function prng(seed: number): Random {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** An integer in [min, max]. */
export function between(random: Random, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1))
}

/** The kill point of a trial, as a fraction of the child's run: its own stream, apart from the child's plan. */
export function killFraction(seed: number): number {
  return prng(seed ^ 0x5bd1e995)()
}
