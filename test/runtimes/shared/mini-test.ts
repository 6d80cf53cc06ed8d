// A describe/it runner small enough to read at a glance, for runtimes whose own test runner
// needs more than a scenario wants (Deno's `deno test` counts each case as a Deno.test, and its
// describe/it live on jsr:, which the check cannot fetch offline). Cases run one after another,
// each bounded, and the process exits non-zero when one fails.

type Case = { name: string; body: () => Promise<void> }

/** A framework with `describe` and `it`, as `storageConformance` takes, and `run` to run what was declared. */
export type MiniTest = {
  describe: (name: string, body: () => void) => void
  it: (name: string, body: () => Promise<void>) => void
  /** Runs every case declared, prints `ok`/`FAIL` per case; resolves with the number that failed. */
  run: () => Promise<number>
}

/** A fresh runner; `timeoutMs` bounds each case. */
export function miniTest(timeoutMs = 20_000): MiniTest {
  const cases: Case[] = []
  const prefix: string[] = []
  return {
    describe(name, body) {
      prefix.push(name)
      try {
        body()
      } finally {
        prefix.pop()
      }
    },
    it(name, body) {
      cases.push({ name: [...prefix, name].join(" > "), body })
    },
    async run() {
      let failed = 0
      for (const { name, body } of cases) {
        const outcome = await bounded(body, timeoutMs).then(
          () => undefined,
          (error: unknown) => error,
        )
        if (outcome === undefined) console.log(`ok   ${name}`)
        else {
          failed++
          console.log(
            `FAIL ${name}\n     ${outcome instanceof Error ? (outcome.stack ?? outcome.message) : String(outcome)}`,
          )
        }
      }
      console.log(`${cases.length - failed} passed, ${failed} failed`)
      return failed
    },
  }
}

function bounded(body: () => Promise<void>, timeoutMs: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs)
  })
  return Promise.race([body(), timeout]).finally(() => clearTimeout(timer))
}
