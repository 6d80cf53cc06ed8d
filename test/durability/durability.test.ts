import { describe, expect, it } from "vitest"
import { failureLine, skippedLines } from "./report.js"
import { runTrials } from "./trials.js"

describe("durability under faults", () => {
  it("loses no acknowledged write, leaves nothing unfinished, and continues the session after kill -9, a busy lock, a full disk and terminated PostgreSQL backends", async () => {
    // Seven trials whose seeds draw three kills, two busy locks, one full disk and one
    // termination (the server restart needs a cluster of its own: npm run test:durability).
    const summary = await runTrials({
      trials: 7,
      seed: 20_240_646,
      faults: ["kill", "busy", "full", "pg-terminate"],
      parallel: 2,
    })
    for (const text of skippedLines(summary.unsupported)) console.warn(text)
    expect(summary.results.map((result) => result.fault).sort()).toEqual([
      "busy",
      "busy",
      "full",
      "kill",
      "kill",
      "kill",
      "pg-terminate",
    ])
    const failures = summary.results.filter((result) => result.findings.length > 0).map(failureLine)
    expect(failures).toEqual([])
  }, 120_000)
})
