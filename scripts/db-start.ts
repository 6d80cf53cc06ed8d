// A throwaway PostgreSQL for development: prints AGENTLOOP_PG_URL, runs until Ctrl-C, then
// stops the server and deletes its files. `AGENTLOOP_PG_URL=... npm run test:unit` then uses it.
import { findPostgres, startCluster } from "../test/setup/pg-cluster.js"

const bin = findPostgres()
if (!bin) {
  console.error("No PostgreSQL found: install it (Debian: apt-get install postgresql), then try again.")
  process.exit(1)
}
const cluster = await startCluster(bin)
console.log(`AGENTLOOP_PG_URL=${cluster.url}`)
console.log("Ctrl-C stops it and deletes its files.")
const stop = () => {
  cluster.stop()
  process.exit(0)
}
process.on("SIGINT", stop)
process.on("SIGTERM", stop)
setInterval(() => {}, 1 << 30)
