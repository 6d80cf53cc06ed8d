import { describe, expect, it } from "vitest"
import { driverRoles } from "../fixtures/sqlite-driver-roles.js"
import { failureLine, skippedLines } from "./report.js"
import { runTrials } from "./trials.js"

const { drivers } = driverRoles()

describe("durability under faults", () => {
  it(`loses no acknowledged write, leaves nothing unfinished, and continues the session after kill -9, a busy lock, a full disk and terminated PostgreSQL backends (SQLite on ${drivers.join(" and ")})`, async () => {
    // Seven trials whose seeds draw two kills, two busy locks, two full disks and one termination
    // (the server restart needs a cluster of its own: npm run test:durability). The SQLite trials
    // take the drivers by seed (even: the first, odd: the second), so where both load each fault
    // runs once on each: the child on one driver, the lock and the checks on the other.
    const summary = await runTrials({
      trials: 7,
      seed: 20_241_118,
      faults: ["kill", "busy", "full", "pg-terminate"],
      drivers,
      parallel: 2,
    })
    for (const text of skippedLines(summary.unsupported)) console.warn(text)
    const ran = summary.results.map(
      (result) => `${result.fault}${result.drivers ? ` on ${result.drivers.child}` : ""}`,
    )
    const [first, second = first] = drivers
    expect(ran.sort()).toEqual(
      [
        `busy on ${first}`,
        `busy on ${second}`,
        `full on ${first}`,
        `full on ${second}`,
        `kill on ${first}`,
        `kill on ${second}`,
        "pg-terminate",
      ].sort(),
    )
    const failures = summary.results.filter((result) => result.findings.length > 0).map(failureLine)
    expect(failures).toEqual([])
  }, 120_000)
})
