const { readFileSync } = require("node:fs")
const root = require("agentloop-sdk")
const testing = require("agentloop-sdk/testing")
const sqlite = require("agentloop-sdk/storage/sqlite")
const postgres = require("agentloop-sdk/storage/postgres")
const durableObject = require("agentloop-sdk/storage/durable-object")
const git = require("agentloop-sdk/snapshot/git")
const tools = require("agentloop-sdk/tools")
const server = require("agentloop-sdk/server")
const { checkExports, runSession, runCodingSession, runServer } = require("./scenario.cjs")

const [apiFile, directory] = process.argv.slice(2)
const modules = {
  "agentloop-sdk": root,
  "agentloop-sdk/testing": testing,
  "agentloop-sdk/storage/sqlite": sqlite,
  "agentloop-sdk/storage/postgres": postgres,
  "agentloop-sdk/storage/durable-object": durableObject,
  "agentloop-sdk/snapshot/git": git,
  "agentloop-sdk/tools": tools,
  "agentloop-sdk/server": server,
}
checkExports(modules, JSON.parse(readFileSync(apiFile, "utf8")))
runSession(root, testing, sqlite, directory)
  .then(() => runCodingSession(testing, tools, git, directory))
  .then(() => runServer(testing, server))
  .then(
    () => console.log("cjs: ok"),
    (error) => {
      console.error(error)
      process.exitCode = 1
    },
  )
