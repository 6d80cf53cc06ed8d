// The testing kit under Bun's own runner: the cases of shared/kit-cases.ts on bun:test.
// Run by test/runtimes/check.ts: bun test ./bun/kit.bun-test.ts (named so that vitest leaves it alone)
import { describe, it } from "bun:test"
import { kitCases } from "../shared/kit-cases.js"

kitCases({ describe, it })
