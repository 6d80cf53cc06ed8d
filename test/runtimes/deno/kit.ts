// The testing kit under Deno: the cases of shared/kit-cases.ts on the small runner of
// shared/mini-test.ts. Run by test/runtimes/check.ts: deno run <flags> deno/kit.ts
import { kitCases } from "../shared/kit-cases.js"
import { miniTest } from "../shared/mini-test.js"

const runner = miniTest()
kitCases(runner)
process.exitCode = (await runner.run()) === 0 ? 0 : 1
