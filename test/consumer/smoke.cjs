const { readFileSync } = require("node:fs")
const root = require("agentloop-sdk")
const testing = require("agentloop-sdk/testing")
const sqlite = require("agentloop-sdk/storage/sqlite")
const { checkExports, runSession } = require("./scenario.cjs")

const [apiFile, directory] = process.argv.slice(2)
const modules = {
  "agentloop-sdk": root,
  "agentloop-sdk/testing": testing,
  "agentloop-sdk/storage/sqlite": sqlite,
}
checkExports(modules, JSON.parse(readFileSync(apiFile, "utf8")))
runSession(root, testing, sqlite, directory).then(
  () => console.log("cjs: ok"),
  (error) => {
    console.error(error)
    process.exitCode = 1
  },
)
