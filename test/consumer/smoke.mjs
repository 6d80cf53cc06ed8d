import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import * as root from "agentloop-sdk"
import * as server from "agentloop-sdk/server"
import * as git from "agentloop-sdk/snapshot/git"
import * as durableObject from "agentloop-sdk/storage/durable-object"
import * as postgres from "agentloop-sdk/storage/postgres"
import * as sqlite from "agentloop-sdk/storage/sqlite"
import * as testing from "agentloop-sdk/testing"
import * as tools from "agentloop-sdk/tools"

const { checkExports, runSession, runCodingSession, runServer } = createRequire(import.meta.url)(
  "./scenario.cjs",
)
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
await runSession(root, testing, sqlite, directory)
await runCodingSession(testing, tools, git, directory)
await runServer(testing, server)
console.log("esm: ok")
