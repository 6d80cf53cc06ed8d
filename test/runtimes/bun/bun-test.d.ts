// The two functions of bun:test the kit's scenario uses, so that the repository's typecheck
// (which has no Bun types) reads bun/kit.bun-test.ts.
declare module "bun:test" {
  export function describe(name: string, body: () => void): void
  export function it(name: string, body: () => Promise<void>): void
}
