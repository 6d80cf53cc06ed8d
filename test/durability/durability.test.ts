import { describe, expect, it } from "vitest"
import { failureLine } from "./report.js"
import { runTrials } from "./trials.js"

describe("kill -9 durability", () => {
  it("loses no acknowledged write, repairs what a killed process left, and continues the session", async () => {
    const summary = await runTrials({ trials: 6, seed: 20_240_601, parallel: 2 })
    const failures = summary.results.filter((result) => result.findings.length > 0).map(failureLine)
    expect(failures).toEqual([])
  }, 120_000)
})
