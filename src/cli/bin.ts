#!/usr/bin/env node
// `agentloop-sdk serve [module]`: see docs/serve.md, or run it with --help.
import { run, stopOnSignals } from "./main.js"

const host = {
  env: process.env,
  cwd: process.cwd(),
  print: (line: string) => console.log(line),
  warn: (line: string) => console.error(line),
}
const result = await run(process.argv.slice(2), host)
if (typeof result === "number") process.exitCode = result
else stopOnSignals(result, host, (code) => process.exit(code))
