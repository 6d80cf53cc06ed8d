import { describe, expect, it } from "vitest"
import { ROW_STAMP } from "../../src/storage/row-stamp.js"
import { rowStamp } from "../../src/storage/rows.js"

describe("the generated row stamp", () => {
  it("is the stamp of the row schemas as they are now (else run npx tsx scripts/generate-row-stamp.ts)", () => {
    expect(ROW_STAMP).toBe(rowStamp())
  })
})
