import { runLoopBench } from "./loop.js"
import { runProcessorBench } from "./processor.js"
import { runStorageBench } from "./storage.js"

// Benchmarks run one after another, so that none disturbs another's timings.
await runStorageBench()
await runProcessorBench()
await runLoopBench()
