import { runCompactionBench } from "./compaction.js"
import { runDeltasBench } from "./deltas.js"
import { runFirstTurnBench } from "./first-turn.js"
import { runLocksBench } from "./locks.js"
import { runLoopBench } from "./loop.js"
import { runProcessesBench } from "./processes.js"
import { runProcessorBench } from "./processor.js"
import { runSandboxBench } from "./sandbox.js"
import { runSessionsBench } from "./sessions.js"
import { runSnapshotBench } from "./snapshot.js"
import { runStartupBench } from "./startup.js"
import { runStorageBench } from "./storage.js"

const benches = {
  storage: runStorageBench,
  processor: runProcessorBench,
  deltas: runDeltasBench,
  loop: runLoopBench,
  compaction: runCompactionBench,
  startup: runStartupBench,
  "first-turn": runFirstTurnBench,
  snapshot: runSnapshotBench,
  processes: runProcessesBench,
  locks: runLocksBench,
  sandbox: runSandboxBench,
  sessions: runSessionsBench,
}
// `npm run bench -- compaction` runs one; no argument runs all.
const chosen = process.argv.slice(2)
const unknown = chosen.filter((name) => !(name in benches))
if (unknown.length > 0)
  throw new Error(`Unknown bench ${unknown.join(", ")}; known: ${Object.keys(benches).join(", ")}`)

// Benchmarks run one after another, so that none disturbs another's timings.
for (const [name, run] of Object.entries(benches))
  if (chosen.length === 0 || chosen.includes(name)) await run()
