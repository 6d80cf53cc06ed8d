import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import * as root from "agentloop-sdk"
import * as sqlite from "agentloop-sdk/storage/sqlite"
import * as testing from "agentloop-sdk/testing"

const { checkExports, runSession } = createRequire(import.meta.url)("./scenario.cjs")
const [apiFile, directory] = process.argv.slice(2)
const modules = {
  "agentloop-sdk": root,
  "agentloop-sdk/testing": testing,
  "agentloop-sdk/storage/sqlite": sqlite,
}
checkExports(modules, JSON.parse(readFileSync(apiFile, "utf8")))
await runSession(root, testing, sqlite, directory)
console.log("esm: ok")
